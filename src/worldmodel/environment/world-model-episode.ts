import { z } from "zod";
import {
  type ActionError,
  ActionErrorSchema,
  createRandom,
  type Observation,
  ObservationSchema,
  type Random,
  RandomStateSchema,
  StateRecordSchema,
  type Task,
  UserError,
} from "../../core/index.ts";
import { plainCopy } from "../runtime/plain-copy.ts";
import type { Workspace } from "../runtime/workspace.ts";
import { EffectSchema, FactSchema, type Start } from "../worldbook/schema.ts";

/** One committed step of the episodic memory (the runtime's `MemoryEntry`), as a snapshot holds it. */
const MemoryEntrySchema = z
  .object({
    action: z.string(),
    facts: z.array(FactSchema),
    effects: z.array(EffectSchema),
    reward: z.number(),
    terminated: z.boolean(),
  })
  .strict();

/** A live world-model episode: the workspace (committed state, episodic memory) and the episode's bookkeeping. */
export interface WorldModelEpisode {
  task: Task;
  seed: number;
  /** The start it began from (its episode id in the worldbook). */
  start: string;
  horizon: number;
  workspace: Workspace;
  /** The observation of the committed state (no action error). */
  observation: Observation;
  steps: number;
  rewardSum: number;
  /** Steps that abstained or could not apply (an explicit unknown or an invalid action). */
  unknownSteps: number;
  terminated: boolean;
  truncated: boolean;
  random: Random;
  lastError: ActionError | undefined;
}

/** The saved form of an episode (the snapshot's `state`). */
export const SavedEpisodeSchema = z
  .object({
    book: z.string(),
    start: z.string(),
    horizon: z.number().int().positive(),
    workspace: z
      .object({
        taskId: z.string(),
        state: StateRecordSchema,
        memory: z.array(MemoryEntrySchema),
        steps: z.number().int().nonnegative(),
      })
      .strict(),
    observation: ObservationSchema,
    steps: z.number().int().nonnegative(),
    rewardSum: z.number(),
    unknownSteps: z.number().int().nonnegative(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    random: RandomStateSchema,
    lastError: ActionErrorSchema.optional(),
  })
  .strict();
export type SavedEpisode = z.infer<typeof SavedEpisodeSchema>;

/**
 * A deep copy with the result of a JSON round trip (states, observations and traces are JSON data),
 * without re-encoding their strings (`plainCopy`).
 */
export const jsonCopy: <T>(value: T) => T = plainCopy;

export function saveEpisode(ep: WorldModelEpisode, book: string): SavedEpisode {
  return jsonCopy({
    book,
    start: ep.start,
    horizon: ep.horizon,
    workspace: ep.workspace.snapshot(),
    observation: ep.observation,
    steps: ep.steps,
    rewardSum: ep.rewardSum,
    unknownSteps: ep.unknownSteps,
    terminated: ep.terminated,
    truncated: ep.truncated,
    random: ep.random.getState(),
    ...(ep.lastError === undefined ? {} : { lastError: ep.lastError }),
  });
}

/** The episode's own seeded stream: the same worldbook, task and seed give the same draws. */
export function episodeRandom(book: string, taskId: string, seed: number): Random {
  return createRandom("worldmodel", book, taskId, seed);
}

/**
 * The start of `task` for `seed`: the one recorded with that seed when there is one, else one drawn
 * from the task's starts by a seeded draw (its own stream, so the step stream does not depend on it).
 */
export function chooseStart(starts: ReadonlyArray<Start>, task: Task, seed: number, book: string): Start {
  const own = starts.filter((s) => s.taskId === task.id);
  if (own.length === 0)
    throw new UserError(
      "worldmodel.no_start",
      `the worldbook has no recorded start for task ${task.id}, so the world model cannot reset it; rebuild the worldbook with traces of that task`,
    );
  const seeded = own.find((s) => s.seed === seed);
  if (seeded) return seeded;
  return own[createRandom("worldmodel-start", book, task.id, seed).int(own.length)] as Start;
}
