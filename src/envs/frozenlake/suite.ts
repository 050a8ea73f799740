import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { seedKey } from "../../core/hash.ts";
import { type Split, type Task, TaskSchema, type TaskSuite } from "../../core/task.ts";
import { type FrozenLakeMap, MapRowsSchema, parseMap, STANDARD_MAPS } from "./map.ts";
import { randomMapForSeed } from "./random-map.ts";
import {
  type FrozenLakeSuiteOptions,
  type FrozenLakeSuiteOptionsInput,
  FrozenLakeSuiteOptionsSchema,
} from "./suite-options.ts";

export const FROZENLAKE_FAMILY = "frozenlake";
export const FROZENLAKE_VERIFIER_KIND = "frozenlake-goal";
export const FROZENLAKE_ORACLE_KIND = "shortest-safe-path";

export const FROZENLAKE_INSTRUCTION =
  "Walk the player P from the start to the goal G across the frozen lake without falling into a hole O. " +
  'Each step is one move: {"type":"move","direction":"left"|"down"|"right"|"up"}. ' +
  "The ice may be slippery: a move can slide sideways instead of going where you intended.";

/** What a FrozenLake task carries in `params`: the map itself, so any suite of such tasks can be played. */
export const FrozenLakeTaskParamsSchema = z.object({
  mapId: z.string().min(1),
  rows: MapRowsSchema,
  source: z.enum(["standard", "random", "custom"]),
  /** Random maps: the seed key (`<seedBase>|<index>`) and frozen probability that rebuild the map. */
  mapSeed: z.string().optional(),
  frozenProbability: z.number().optional(),
});
export type FrozenLakeTaskParams = z.infer<typeof FrozenLakeTaskParamsSchema>;

/** The map a FrozenLake task is played on; throws a UserError when the task carries no valid map. */
export function mapOfTask(task: Task): FrozenLakeMap {
  const parsed = FrozenLakeTaskParamsSchema.safeParse(task.params);
  if (!parsed.success) {
    throw new UserError(
      "frozenlake.bad_task",
      `Task "${task.id}" has no FrozenLake map in params (expected {mapId, rows, source}): ` +
        parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
    );
  }
  return parseMap(parsed.data.mapId, parsed.data.rows);
}

export interface FrozenLakeSuite extends TaskSuite {
  /** The parsed map of a task (throws a UserError for unknown ids). */
  map(taskId: string): FrozenLakeMap;
}

function makeTask(id: string, split: Split, tags: string[], params: FrozenLakeTaskParams): Task {
  return TaskSchema.parse({
    id,
    instruction: FROZENLAKE_INSTRUCTION,
    family: FROZENLAKE_FAMILY,
    seed: 0,
    split,
    verifier: { kind: FROZENLAKE_VERIFIER_KIND },
    oracle: { kind: FROZENLAKE_ORACLE_KIND },
    tags: [FROZENLAKE_FAMILY, params.source, `size-${params.rows.length}`, ...tags],
    params,
  });
}

function tasksFrom(options: FrozenLakeSuiteOptions): Task[] {
  const tasks: Task[] = [];
  for (const id of options.standard) {
    tasks.push(
      makeTask(id, options.standardSplit, [], {
        mapId: id,
        rows: [...STANDARD_MAPS[id]],
        source: "standard",
      }),
    );
  }
  for (const group of options.randomMaps) {
    const heldout = group.heldoutCount ?? Math.floor(group.count / 2);
    for (let index = 0; index < group.count; index++) {
      const id = `random-${group.size}-${index}`;
      const mapSeed = seedKey(group.seedBase, index);
      const rows = randomMapForSeed(group.size, mapSeed, group.frozenProbability);
      const split: Split = index >= group.count - heldout ? "heldout" : "train";
      tasks.push(
        makeTask(id, split, [], {
          mapId: id,
          rows,
          source: "random",
          mapSeed,
          frozenProbability: group.frozenProbability,
        }),
      );
    }
  }
  for (const custom of options.maps) {
    parseMap(custom.id, custom.rows);
    tasks.push(
      makeTask(custom.id, custom.split, [], { mapId: custom.id, rows: custom.rows, source: "custom" }),
    );
  }
  return tasks;
}

function parseOptions(input: FrozenLakeSuiteOptionsInput): FrozenLakeSuiteOptions {
  const parsed = FrozenLakeSuiteOptionsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new UserError("frozenlake.bad_suite", `FrozenLake suite options are invalid: ${issues.join("; ")}.`, {
    cause: parsed.error,
  });
}

/**
 * The FrozenLake task suite: one task per map. Ids: `4x4`, `8x8` (Gymnasium's maps), `random-<size>-<k>`
 * (seeded random maps) and the ids of custom maps. Verifier kind `frozenlake-goal`, oracle kind
 * `shortest-safe-path`.
 */
export function createFrozenLakeSuite(input: FrozenLakeSuiteOptionsInput = {}): FrozenLakeSuite {
  const options = parseOptions(input);
  const tasks = tasksFrom(options);
  const byId = new Map<string, Task>();
  for (const task of tasks) {
    if (byId.has(task.id)) {
      throw new UserError(
        "frozenlake.duplicate_task",
        `FrozenLake suite has two maps with id "${task.id}"; give custom maps and random groups distinct ids/sizes.`,
      );
    }
    byId.set(task.id, task);
  }
  const maps = new Map<string, FrozenLakeMap>();
  const get = (id: string): Task => {
    const task = byId.get(id);
    if (task) return task;
    const known = tasks.map((t) => t.id);
    const shown =
      known.length > 12 ? `${known.slice(0, 12).join(", ")}, ... (${known.length} in all)` : known.join(", ");
    throw new UserError(
      "task.unknown",
      `Unknown FrozenLake task "${id}". Known tasks: ${shown || "(none)"}.`,
    );
  };
  return {
    name: options.name,
    family: FROZENLAKE_FAMILY,
    list: () => tasks,
    get,
    map(taskId) {
      let map = maps.get(taskId);
      if (!map) {
        map = mapOfTask(get(taskId));
        maps.set(taskId, map);
      }
      return map;
    },
  };
}
