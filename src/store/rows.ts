import { z } from "zod";
import {
  type StepRecord,
  StepRecordSchema,
  type Task,
  TaskSchema,
  type Trajectory,
  TrajectorySchema,
} from "../core/index.ts";
import {
  type RunRecord,
  RunRecordSchema,
  type TrajectoryHeader,
  type TreeNodeRecord,
  TreeNodeRecordSchema,
  type TreeRecord,
  TreeRecordSchema,
} from "./contract.ts";
import type { MiddlePieces } from "./step-text.ts";
import { corruptRow } from "./store-errors.ts";

/*
 * Rows as both stores keep them: the SQLite columns (snake_case), JSON as text. The memory store keeps
 * the very same rows, so that both stores share encoding, validation and copy semantics.
 */

export interface RunRow {
  id: string;
  kind: string;
  status: string;
  seed: string;
  config: string;
  code_version: string;
  created_at_ms: number;
  updated_at_ms: number;
  summary: string;
}

export interface TaskRow {
  run_id: string;
  task_id: string;
  data: string;
}

export interface TrajectoryRow {
  id: string;
  run_id: string;
  task_id: string;
  episode_index: number;
  seed: number;
  policy: string;
  status: string;
  started_at_ms: number;
  ended_at_ms: number | null;
  outcome: string | null;
  error: string | null;
  final_observation: string | null;
  meta: string;
  schema_version: number;
}

/** A trajectory row as read back, with its number of steps. */
export interface TrajectoryRowWithCount extends TrajectoryRow {
  step_count: number;
}

/**
 * A step row as appended. With `observation` (the observation's JSON text, kept once in the
 * `observations` table and referenced by `observation_id`), `middle` holds the pieces of the step's
 * text after the observation up to its time (`middleText`; kept once in `step_middles` when it recurs,
 * referenced by `middle_id`, else stored at the front of `data`) and `data` the rest (`stepEnd`);
 * without, `middle` is null and `data` is the whole step text.
 */
export interface StepRow {
  trajectory_id: string;
  idx: number;
  action_type: string | null;
  reward: number;
  terminated: 0 | 1;
  truncated: 0 | 1;
  observation: string | null;
  middle: MiddlePieces | null;
  data: string;
}

export interface ArtefactRow {
  sha256: string;
  mime: string;
  size: number;
}

export interface TreeRow {
  id: string;
  run_id: string;
  task_id: string;
  seed: number;
  status: string;
  data: string;
}

export interface NodeRow {
  tree_id: string;
  id: string;
  parent_id: string | null;
  depth: number;
  status: string;
  data: string;
}

const TrajectoryHeaderSchema = TrajectorySchema.omit({ steps: true, finalObservation: true }).extend({
  stepCount: z.number().int().nonnegative(),
});

function validate<T>(schema: z.ZodType<T>, value: () => unknown, what: string): T {
  let input: unknown;
  try {
    input = value();
  } catch (cause) {
    throw corruptRow(what, cause);
  }
  const result = schema.safeParse(input);
  if (!result.success) throw corruptRow(what, result.error);
  return result.data;
}

export function decodeRun(row: RunRow): RunRecord {
  return validate(
    RunRecordSchema,
    () => ({
      id: row.id,
      kind: row.kind,
      status: row.status,
      seed: row.seed,
      config: JSON.parse(row.config),
      codeVersion: row.code_version,
      createdAtMs: row.created_at_ms,
      updatedAtMs: row.updated_at_ms,
      summary: JSON.parse(row.summary),
    }),
    `run ${row.id}`,
  );
}

export function decodeTask(row: TaskRow): Task {
  return validate(TaskSchema, () => JSON.parse(row.data), `task ${row.task_id} of run ${row.run_id}`);
}

function headerFields(row: TrajectoryRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    schemaVersion: row.schema_version,
    id: row.id,
    runId: row.run_id,
    taskId: row.task_id,
    episodeIndex: row.episode_index,
    seed: row.seed,
    policy: row.policy,
    status: row.status,
    startedAtMs: row.started_at_ms,
    meta: JSON.parse(row.meta),
  };
  if (row.ended_at_ms !== null) out.endedAtMs = row.ended_at_ms;
  if (row.outcome !== null) out.outcome = JSON.parse(row.outcome);
  if (row.error !== null) out.error = JSON.parse(row.error);
  return out;
}

export function decodeTrajectoryHeader(row: TrajectoryRowWithCount): TrajectoryHeader {
  return validate(
    TrajectoryHeaderSchema,
    () => ({ ...headerFields(row), stepCount: row.step_count }),
    `trajectory ${row.id}`,
  ) as TrajectoryHeader;
}

/** `steps` are the `data` texts of the trajectory's step rows in index order. */
export function decodeTrajectory(row: TrajectoryRow, steps: ReadonlyArray<string>): Trajectory {
  return validate(
    TrajectorySchema,
    () => {
      const out = headerFields(row);
      out.steps = steps.map((s) => JSON.parse(s));
      if (row.final_observation !== null) out.finalObservation = JSON.parse(row.final_observation);
      return out;
    },
    `trajectory ${row.id}`,
  );
}

/** One step's stored `data` text of trajectory `trajectoryId`. */
export function decodeStep(trajectoryId: string, text: string): StepRecord {
  return validate(StepRecordSchema, () => JSON.parse(text), `a step of trajectory ${trajectoryId}`);
}

/** A tree or node record: its own `fields` plus the row's id, status and JSON `data`. */
function decodeWithData<T>(
  schema: z.ZodType<T>,
  row: { id: string; status: string; data: string },
  fields: Record<string, unknown>,
  what: string,
): T {
  return validate(
    schema,
    () => ({ ...fields, id: row.id, status: row.status, data: JSON.parse(row.data) }),
    what,
  );
}

export function decodeTree(row: TreeRow): TreeRecord {
  const fields = { runId: row.run_id, taskId: row.task_id, seed: row.seed };
  return decodeWithData(TreeRecordSchema, row, fields, `tree ${row.id}`);
}

export function decodeNode(row: NodeRow): TreeNodeRecord {
  const fields = { treeId: row.tree_id, parentId: row.parent_id, depth: row.depth };
  return decodeWithData(TreeNodeRecordSchema, row, fields, `node ${row.id} of tree ${row.tree_id}`);
}
