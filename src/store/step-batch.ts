import { z } from "zod";
import { UserError } from "../core/index.ts";
import type { PendingArtefact } from "./encode.ts";
import type { StepRow, TrajectoryRow } from "./rows.ts";

/** Defaults of the SQLite store's step batching (see `SqliteStoreOptions`). */
export const DEFAULT_BATCH_STEPS = 256;
export const DEFAULT_BATCH_MS = 200;

export const StepBatchOptionsSchema = z.object({
  batchSteps: z.number().int().positive().default(DEFAULT_BATCH_STEPS),
  batchMs: z.number().nonnegative().default(DEFAULT_BATCH_MS),
});
export type StepBatchOptions = z.infer<typeof StepBatchOptionsSchema>;

export function parseBatchOptions(options: { batchSteps?: number; batchMs?: number }): StepBatchOptions {
  const result = StepBatchOptionsSchema.safeParse({
    batchSteps: options.batchSteps,
    batchMs: options.batchMs,
  });
  if (result.success) return result.data;
  throw new UserError(
    "store.bad_options",
    `opening the run store failed: batchSteps must be a positive integer and batchMs a non-negative number of milliseconds:\n${z.prettifyError(result.error)}\nPass valid values or leave them out for the defaults (${DEFAULT_BATCH_STEPS} steps, ${DEFAULT_BATCH_MS} ms).`,
  );
}

/**
 * Steps appended but not yet committed, in append order, with their screenshot artefacts (whose files
 * are already written), and the trajectories started since the last commit (their rows go in first).
 * A batch is due when it holds `batchSteps` steps or its oldest entry waited `batchMs` milliseconds; the
 * store commits it in one transaction then, and before any other operation but a start.
 * Artefact rows stay with the batch even when a step is taken back: a row for a written file is harmless.
 */
export interface StepBatch {
  /** Waiting steps and starts. */
  readonly size: number;
  /** Adds a trajectory's start (its row as inserted). */
  start(row: TrajectoryRow): void;
  /** The waiting start of `trajectoryId`, when it has not been committed yet. */
  pendingStart(trajectoryId: string): TrajectoryRow | undefined;
  starts(): Iterable<TrajectoryRow>;
  /** The index the next step of `trajectoryId` must have, when the batch holds steps of it. */
  nextIndex(trajectoryId: string): number | undefined;
  /** Adds a step; returns whether the batch is now due. */
  add(row: StepRow, pending: ReadonlyArray<PendingArtefact>): boolean;
  /** Takes back a step whose commit failed (the caller is told that step was not written). */
  remove(row: StepRow): void;
  rows(): ReadonlyArray<StepRow>;
  artefacts(): ReadonlyArray<PendingArtefact>;
  /** Drops the steps (and a waiting start) of one trajectory (they can never commit). */
  drop(trajectoryId: string): void;
  /** After a commit. */
  clear(): void;
}

export function createStepBatch(options: StepBatchOptions, now: () => number): StepBatch {
  let rows: StepRow[] = [];
  let artefacts: PendingArtefact[] = [];
  const next = new Map<string, number>();
  const starts = new Map<string, TrajectoryRow>();
  let firstAt = 0;

  function keep(kept: StepRow[]): void {
    rows = kept;
    next.clear();
    for (const row of rows) next.set(row.trajectory_id, row.idx + 1);
  }

  return {
    get size() {
      return rows.length + starts.size;
    },
    start(row) {
      if (rows.length + starts.size === 0) firstAt = now();
      starts.set(row.id, row);
    },
    pendingStart: (trajectoryId) => starts.get(trajectoryId),
    starts: () => starts.values(),
    nextIndex(trajectoryId) {
      return next.get(trajectoryId);
    },
    add(row, pending) {
      if (rows.length + starts.size === 0) firstAt = now();
      rows.push(row);
      for (const a of pending) artefacts.push(a);
      next.set(row.trajectory_id, row.idx + 1);
      return rows.length >= options.batchSteps || now() - firstAt >= options.batchMs;
    },
    remove(row) {
      keep(rows.filter((r) => r !== row));
    },
    rows: () => rows,
    artefacts: () => artefacts,
    drop(trajectoryId) {
      starts.delete(trajectoryId);
      keep(rows.filter((row) => row.trajectory_id !== trajectoryId));
    },
    clear() {
      rows = [];
      artefacts = [];
      next.clear();
      starts.clear();
    },
  };
}
