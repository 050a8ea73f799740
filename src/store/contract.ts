import { z } from "zod";
import type {
  ErrorInfo,
  Image,
  StepRecord,
  Task,
  Trajectory,
  TrajectoryStatus,
  VerifierResult,
} from "../core/index.ts";

export const RunStatusSchema = z.enum(["running", "complete", "failed", "interrupted"]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunRecordSchema = z.object({
  id: z.string(),
  /** What produced the run: run, search, eval, skl, ... */
  kind: z.string(),
  status: RunStatusSchema,
  seed: z.string(),
  /** The validated configuration the run used. */
  config: z.unknown(),
  /** Package version and git commit, when known. */
  codeVersion: z.string(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  summary: z.record(z.string(), z.unknown()).default({}),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;
export type NewRun = Omit<RunRecord, "status" | "updatedAtMs" | "summary">;

export interface NewTrajectory {
  id: string;
  runId: string;
  taskId: string;
  episodeIndex: number;
  seed: number;
  policy: string;
  startedAtMs: number;
  meta?: Record<string, unknown>;
}

export interface TrajectoryEnd {
  status: Exclude<TrajectoryStatus, "running">;
  endedAtMs: number;
  finalObservation?: StepRecord["observation"];
  outcome?: VerifierResult;
  error?: ErrorInfo;
}

export interface TrajectoryFilter {
  taskId?: string;
  status?: TrajectoryStatus;
}

/** Filters for `listNodes`; `parentId: null` selects the roots. */
export interface TreeNodeFilter {
  status?: TreeNodeStatus;
  parentId?: string | null;
}

/** One page of a listing: `limit` rows (at most 10,000) after skipping `offset`. */
export interface PageOptions {
  offset: number;
  limit: number;
}

/** A summary row without steps (for listings). */
export interface TrajectoryHeader extends Omit<Trajectory, "steps" | "finalObservation"> {
  stepCount: number;
}

export const TreeNodeStatusSchema = z.enum(["alive", "leaf", "pruned", "dropped", "pending"]);
export type TreeNodeStatus = z.infer<typeof TreeNodeStatusSchema>;

export const TreeRecordSchema = z.object({
  id: z.string().min(1),
  runId: z.string().min(1),
  taskId: z.string(),
  seed: z.number().int(),
  status: z.enum(["running", "complete"]),
  data: z.record(z.string(), z.unknown()),
});

export const TreeNodeRecordSchema = z.object({
  id: z.string().min(1),
  treeId: z.string().min(1),
  parentId: z.string().nullable(),
  depth: z.number().int().nonnegative(),
  status: TreeNodeStatusSchema,
  data: z.record(z.string(), z.unknown()),
});

/** A search tree (one per task per search run). `data` holds the search's own fields. */
export interface TreeRecord {
  id: string;
  runId: string;
  taskId: string;
  seed: number;
  status: "running" | "complete";
  data: Record<string, unknown>;
}

/** A node of a search tree: an executed action prefix and the state it reached. */
export interface TreeNodeRecord {
  id: string;
  treeId: string;
  parentId: string | null;
  /** Number of actions in the prefix. */
  depth: number;
  status: TreeNodeStatus;
  data: Record<string, unknown>;
}

/**
 * Error codes the stores throw. Protocol codes (unknown ids, finished trajectories, invalid arguments,
 * closed store) are `InternalError`s: the caller broke the protocol. `schemaTooNew` is a `UserError`.
 * The rest are `StoreError`s (src/store/store-errors.ts) about the store itself, each message naming the
 * store and the fix: category `user` (exit 2) for a store to replace or reconfigure (foreign, damaged,
 * not a database, read-only, needs a migration), `environment` (exit 3) for one that failed under the run
 * (disk full, deleted or moved, I/O error).
 */
export const STORE_ERROR_CODES = {
  unknownRun: "store.unknown_run",
  unknownTrajectory: "store.unknown_trajectory",
  unknownTree: "store.unknown_tree",
  duplicateId: "store.duplicate_id",
  trajectoryFinished: "store.trajectory_finished",
  stepOutOfOrder: "store.step_out_of_order",
  invalidArgument: "store.invalid_argument",
  screenshotHashMismatch: "store.screenshot_hash_mismatch",
  corruptRow: "store.corrupt_row",
  schemaTooNew: "store.schema_too_new",
  closed: "store.closed",
  foreignDatabase: "store.foreign_database",
  notADatabase: "store.not_a_database",
  corrupt: "store.corrupt",
  readOnly: "store.read_only",
  needsMigration: "store.needs_migration",
  diskFull: "store.disk_full",
  vanished: "store.vanished",
  ioError: "store.io_error",
} as const;

export interface ArtefactRef {
  sha256: string;
  mime: string;
  size: number;
}

/**
 * The run store. Every method is synchronous and atomic. The SQLite store commits appended steps in
 * batches (see `SqliteStoreOptions.batchSteps`): a step is durable once its batch commits, which
 * happens before any other call but a start, an append or an end (and by a timer once the batch waited
 * `batchMs`); a start commits with the trajectory's first batch or its end, an end with the
 * trajectory's last steps or later. So a crash never leaves a half-written step or batch, or an episode
 * marked complete that was not; it loses at most the waiting entries: steps of trajectories still
 * running, and the ends of episodes finished in the last `batchMs`. Every call sees every step appended
 * before it; another connection sees what has been committed.
 * Screenshots in observations (`screenshot.bytes`) are moved to content-addressed artefacts on write and
 * come back without bytes (read them with `getArtefact`).
 *
 * Records are copied on write and on read: mutating an argument after a call, or a returned record,
 * never changes what is stored. Records read back are validated with the core schemas.
 *
 * Protocol errors (see `STORE_ERROR_CODES`) are `InternalError`s: a trajectory, task or tree must name an
 * existing run; ids of runs and trajectories are unique; steps are appended with `index` 0, 1, 2, ... to a
 * trajectory that is still running; a trajectory is finished once.
 */
export interface RunStore {
  readonly kind: "sqlite" | "memory";
  /** The new run has status `running`, `updatedAtMs = createdAtMs` and an empty summary. */
  createRun(run: NewRun): RunRecord;
  getRun(id: string): RunRecord | undefined;
  /** Newest first (`createdAtMs` descending, ties by id descending). */
  listRuns(options?: { kind?: string; limit?: number }): RunRecord[];
  /** `summary`, when given, replaces the stored summary. */
  updateRun(
    id: string,
    patch: { status?: RunStatus; summary?: Record<string, unknown>; updatedAtMs: number },
  ): void;

  /** Inserts or replaces the task with this id in the run. */
  putTask(runId: string, task: Task): void;
  /** In order of first insertion. */
  listTasks(runId: string): Task[];

  startTrajectory(t: NewTrajectory): void;
  appendStep(trajectoryId: string, step: StepRecord): void;
  /** `end.status` must not be `running`. The trajectory has its final status only after this returns. */
  finishTrajectory(trajectoryId: string, end: TrajectoryEnd): void;
  getTrajectory(id: string): Trajectory | undefined;
  /** Headers in episode order (`episodeIndex`, ties by id); `page` selects one page of them. */
  listTrajectories(runId: string, filter?: TrajectoryFilter, page?: PageOptions): TrajectoryHeader[];
  /** How many trajectories `listTrajectories(runId, filter)` lists (indexed; no steps read). */
  countTrajectories(runId: string, filter?: TrajectoryFilter): number;
  /** A trajectory's header without reading its steps. */
  getTrajectoryHeader(id: string): TrajectoryHeader | undefined;
  /**
   * One page of a trajectory's steps, in index order: those with `offset ≤ index < offset + limit`
   * (read by the steps' key; empty past the end or for an unknown trajectory).
   */
  listSteps(trajectoryId: string, page: PageOptions): StepRecord[];
  /**
   * Full trajectories of a run in episode order, one at a time (memory stays bounded). Writing to the
   * store while iterating is allowed; trajectories started meanwhile may or may not be visited.
   */
  iterateTrajectories(runId: string, filter?: TrajectoryFilter): IterableIterator<Trajectory>;

  /** Stores bytes under their sha256 (idempotent: the same bytes give the same ref, stored once). */
  putArtefact(bytes: Uint8Array, mime: string): ArtefactRef;
  /** A fresh copy of the bytes, or undefined when unknown (or not a sha256 hex string). */
  getArtefact(sha256: string): Uint8Array | undefined;

  /** Inserts or replaces a tree. */
  putTree(tree: TreeRecord): void;
  getTree(id: string): TreeRecord | undefined;
  /** In order of first insertion. */
  listTrees(runId: string): TreeRecord[];
  /** Insert or replace nodes (keyed by tree id and node id), all in one transaction. */
  putNodes(nodes: ReadonlyArray<TreeNodeRecord>): void;
  /** By depth, ties in order of first insertion; `page` selects one page of them. */
  listNodes(treeId: string, filter?: TreeNodeFilter, page?: PageOptions): TreeNodeRecord[];
  /** How many nodes `listNodes(treeId, filter)` lists. */
  countNodes(treeId: string, filter?: TreeNodeFilter): number;
  /** One node of a tree by id. */
  getNode(treeId: string, nodeId: string): TreeNodeRecord | undefined;

  /** Idempotent. Any other call after it throws. */
  close(): void;
}

export type { Image };
