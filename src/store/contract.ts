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

/** A summary row without steps (for listings). */
export interface TrajectoryHeader extends Omit<Trajectory, "steps" | "finalObservation"> {
  stepCount: number;
}

export const TreeNodeStatusSchema = z.enum(["alive", "leaf", "pruned", "dropped", "pending"]);
export type TreeNodeStatus = z.infer<typeof TreeNodeStatusSchema>;

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

export interface ArtefactRef {
  sha256: string;
  mime: string;
  size: number;
}

/**
 * The run store. Every method is synchronous and atomic: `appendStep` and `finishTrajectory` each run in
 * one transaction, so a crash never leaves a half-written step or an episode marked complete that was not.
 * Screenshots in observations (`screenshot.bytes`) are moved to content-addressed artefacts on write and
 * come back without bytes (read them with `getArtefact`).
 */
export interface RunStore {
  readonly kind: "sqlite" | "memory";
  createRun(run: NewRun): RunRecord;
  getRun(id: string): RunRecord | undefined;
  listRuns(options?: { kind?: string; limit?: number }): RunRecord[];
  updateRun(
    id: string,
    patch: { status?: RunStatus; summary?: Record<string, unknown>; updatedAtMs: number },
  ): void;

  putTask(runId: string, task: Task): void;
  listTasks(runId: string): Task[];

  startTrajectory(t: NewTrajectory): void;
  appendStep(trajectoryId: string, step: StepRecord): void;
  finishTrajectory(trajectoryId: string, end: TrajectoryEnd): void;
  getTrajectory(id: string): Trajectory | undefined;
  listTrajectories(runId: string, filter?: TrajectoryFilter): TrajectoryHeader[];
  /** Full trajectories of a run in episode order, one at a time. */
  iterateTrajectories(runId: string, filter?: TrajectoryFilter): IterableIterator<Trajectory>;

  putArtefact(bytes: Uint8Array, mime: string): ArtefactRef;
  getArtefact(sha256: string): Uint8Array | undefined;

  putTree(tree: TreeRecord): void;
  getTree(id: string): TreeRecord | undefined;
  listTrees(runId: string): TreeRecord[];
  /** Insert or replace nodes, all in one transaction. */
  putNodes(nodes: ReadonlyArray<TreeNodeRecord>): void;
  listNodes(treeId: string): TreeNodeRecord[];

  close(): void;
}

export type { Image };
