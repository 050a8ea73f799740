import { z } from "zod";
import { UserError } from "../core/index.ts";
import type { PendingArtefact, TrajectoryEndRow } from "./encode.ts";
import type { StepRow, TrajectoryRow } from "./rows.ts";
import { middleLength } from "./step-text.ts";

/** Defaults of the SQLite store's step batching (see `SqliteStoreOptions`). */
export const DEFAULT_BATCH_STEPS = 256;
export const DEFAULT_BATCH_MS = 200;
/**
 * A batch is also due once its rows hold this many characters of text: a commit that failed on a full
 * disk is tried again in the room of the store's reserve file (`RESERVE_BYTES`, 1 MiB), so the batch must
 * fit there with its pages' overhead (a step of a few KB fills a 4 KB page of its own).
 */
export const BATCH_MAX_CHARS = 256 * 1024;

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
 * are already written), the trajectories started since the last commit (their rows go in first) and the
 * ends of trajectories finished since (they go in last, so an end commits with all its steps).
 * A batch is due when it holds `batchSteps` steps, or `BATCH_MAX_CHARS` of text, or its oldest entry
 * waited `batchMs` milliseconds; the store commits it in one transaction then, and before any other
 * operation but a start, an append or an end.
 * Artefact rows stay with the batch even when a step or an end is taken back: a row for a written file
 * is harmless.
 */
export interface StepBatch {
  /** Waiting steps, starts and ends. */
  readonly size: number;
  /** Milliseconds since the oldest waiting entry joined (0 when empty). */
  age(): number;
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
  /** Adds a trajectory's end; returns whether the batch is now due. */
  end(row: TrajectoryEndRow, pending: ReadonlyArray<PendingArtefact>): boolean;
  /** The waiting end of `trajectoryId`. */
  pendingEnd(trajectoryId: string): TrajectoryEndRow | undefined;
  ends(): Iterable<TrajectoryEndRow>;
  /** Takes back an end whose commit failed. */
  removeEnd(trajectoryId: string): void;
  artefacts(): ReadonlyArray<PendingArtefact>;
  /** Drops the steps, the waiting start and the waiting end of one trajectory (they can never commit). */
  drop(trajectoryId: string): void;
  /** After a commit. */
  clear(): void;
}

export function createStepBatch(options: StepBatchOptions, now: () => number): StepBatch {
  let rows: StepRow[] = [];
  let artefacts: PendingArtefact[] = [];
  const next = new Map<string, number>();
  const starts = new Map<string, TrajectoryRow>();
  const ends = new Map<string, TrajectoryEndRow>();
  let firstAt = 0;
  /** Characters of text in the waiting steps and ends. */
  let chars = 0;

  function size(): number {
    return rows.length + starts.size + ends.size;
  }
  /** Called before an entry joins: the batch's age counts from its first entry. */
  function joining(): void {
    if (size() === 0) firstAt = now();
  }
  function keep(kept: StepRow[]): void {
    rows = kept;
    next.clear();
    chars = 0;
    for (const row of rows) {
      next.set(row.trajectory_id, row.idx + 1);
      chars += charsOf(row);
    }
    for (const end of ends.values()) chars += endChars(end);
  }
  function due(): boolean {
    return (
      rows.length >= options.batchSteps || chars >= BATCH_MAX_CHARS || now() - firstAt >= options.batchMs
    );
  }
  function keepArtefacts(pending: ReadonlyArray<PendingArtefact>): void {
    for (const a of pending) artefacts.push(a);
  }

  return {
    get size() {
      return size();
    },
    age: () => (size() === 0 ? 0 : now() - firstAt),
    start(row) {
      joining();
      starts.set(row.id, row);
    },
    pendingStart: (trajectoryId) => starts.get(trajectoryId),
    starts: () => starts.values(),
    nextIndex(trajectoryId) {
      return next.get(trajectoryId);
    },
    add(row, pending) {
      joining();
      rows.push(row);
      keepArtefacts(pending);
      next.set(row.trajectory_id, row.idx + 1);
      chars += charsOf(row);
      return due();
    },
    remove(row) {
      keep(rows.filter((r) => r !== row));
    },
    rows: () => rows,
    end(row, pending) {
      joining();
      ends.set(row.id, row);
      keepArtefacts(pending);
      chars += endChars(row);
      return due();
    },
    pendingEnd: (trajectoryId) => ends.get(trajectoryId),
    ends: () => ends.values(),
    removeEnd(trajectoryId) {
      const end = ends.get(trajectoryId);
      if (end !== undefined) chars -= endChars(end);
      ends.delete(trajectoryId);
    },
    artefacts: () => artefacts,
    drop(trajectoryId) {
      starts.delete(trajectoryId);
      ends.delete(trajectoryId);
      keep(rows.filter((row) => row.trajectory_id !== trajectoryId));
    },
    clear() {
      rows = [];
      artefacts = [];
      next.clear();
      starts.clear();
      ends.clear();
      chars = 0;
    },
  };
}

function charsOf(row: StepRow): number {
  return row.data.length + (row.observation?.length ?? 0) + (row.middle ? middleLength(row.middle) : 0);
}

function endChars(end: TrajectoryEndRow): number {
  return (end.final_observation?.length ?? 0) + (end.outcome?.length ?? 0) + (end.error?.length ?? 0);
}
