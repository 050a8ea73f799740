import { z } from "zod";
import {
  ErrorInfoSchema,
  type Observation,
  ObservationSchema,
  SCHEMA_VERSION,
  sha256Hex,
  type Task,
  TaskSchema,
  TrajectorySchema,
  VerifierResultSchema,
} from "../core/index.ts";
import {
  type NewRun,
  type NewTrajectory,
  type PageOptions,
  RunRecordSchema,
  RunStatusSchema,
  STORE_ERROR_CODES,
  type TrajectoryEnd,
  type TreeNodeRecord,
  TreeNodeRecordSchema,
  type TreeRecord,
  TreeRecordSchema,
} from "./contract.ts";
import { fastEndTexts, fastTrajectoryMeta } from "./encode-fast.ts";
import type { NodeRow, RunRow, TaskRow, TrajectoryRow, TreeRow } from "./rows.ts";
import { frozenObservationText } from "./step-text.ts";
import { invalidArgument, protocolError } from "./store-errors.ts";

/*
 * Write side shared by both stores: validate the caller's records, detach screenshot bytes, and turn
 * records into rows (JSON text), which also copies them.
 */

/** Screenshot bytes to store as an artefact before the row that references them. */
export interface PendingArtefact {
  sha256: string;
  mime: string;
  bytes: Uint8Array;
}

export function check<T>(schema: z.ZodType<T>, value: unknown, operation: string, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidArgument(operation, what, result.error);
  return result.data;
}

/** What `createRun` takes: the record without the fields the store sets (`NewRun`), with a non-empty id. */
const NewRunSchema = RunRecordSchema.omit({ status: true, updatedAtMs: true, summary: true }).extend({
  id: z.string().min(1),
});

export function encodeNewRun(run: NewRun): RunRow {
  const r = check(NewRunSchema, run, `createRun(${run?.id})`, "run");
  return {
    id: r.id,
    kind: r.kind,
    status: "running",
    seed: r.seed,
    config: JSON.stringify(r.config ?? null),
    code_version: r.codeVersion,
    created_at_ms: r.createdAtMs,
    updated_at_ms: r.createdAtMs,
    summary: "{}",
  };
}

const RunPatchSchema = z.object({
  status: RunStatusSchema.optional(),
  summary: z.record(z.string(), z.unknown()).optional(),
  updatedAtMs: z.number(),
});

/** Applies a validated patch to a copy of the row. */
export function patchRunRow(row: RunRow, patch: unknown): RunRow {
  const p = check(RunPatchSchema, patch, `updateRun(${row.id})`, "run patch");
  const next = { ...row, updated_at_ms: p.updatedAtMs };
  if (p.status !== undefined) next.status = p.status;
  if (p.summary !== undefined) next.summary = JSON.stringify(p.summary);
  return next;
}

export function encodeTask(runId: string, task: Task): TaskRow {
  const t = check(TaskSchema, task, `putTask(${runId}, ${task?.id})`, "task");
  return { run_id: runId, task_id: t.id, data: JSON.stringify(t) };
}

export const NewTrajectorySchema = TrajectorySchema.pick({
  runId: true,
  taskId: true,
  episodeIndex: true,
  seed: true,
  policy: true,
  startedAtMs: true,
  meta: true,
}).extend({ id: z.string().min(1) });

/** The columns naming a record's run, task and seed, shared by trajectories and trees. */
function ownerColumns(v: { id: string; runId: string; taskId: string; seed: number }) {
  return { id: v.id, run_id: v.runId, task_id: v.taskId, seed: v.seed };
}

export function encodeNewTrajectory(t: NewTrajectory): TrajectoryRow {
  // Fast path: a start that passes the hand checks is stored as given (what the schema would give).
  const meta = fastTrajectoryMeta(t);
  const v = meta === undefined ? check(NewTrajectorySchema, t, `startTrajectory(${t?.id})`, "trajectory") : t;
  // Fields written out, not `...ownerColumns(v)`: spreading into this literal cost ~10 µs a start.
  return {
    id: v.id,
    run_id: v.runId,
    task_id: v.taskId,
    seed: v.seed,
    episode_index: v.episodeIndex,
    policy: v.policy,
    status: "running",
    started_at_ms: v.startedAtMs,
    ended_at_ms: null,
    outcome: null,
    error: null,
    final_observation: null,
    meta: meta ?? JSON.stringify(v.meta),
    schema_version: SCHEMA_VERSION,
  };
}

/** Returns the observation without screenshot bytes; the bytes go to `pending`. */
export function detachScreenshot(
  observation: Observation,
  operation: string,
  pending: PendingArtefact[],
): Observation {
  const shot = observation.screenshot;
  if (shot?.bytes === undefined) return observation;
  const sha256 = sha256Hex(shot.bytes);
  if (sha256 !== shot.sha256) {
    throw protocolError(
      STORE_ERROR_CODES.screenshotHashMismatch,
      `${operation}: the screenshot's sha256 ${shot.sha256} is not the hash of its bytes (${sha256}); compute Image.sha256 with sha256Hex(bytes) where the screenshot is taken.`,
      { declared: shot.sha256, actual: sha256 },
    );
  }
  pending.push({ sha256, mime: shot.mime, bytes: shot.bytes });
  const { bytes: _bytes, ...reference } = shot;
  return { ...observation, screenshot: reference };
}

/** No artefacts to store (shared, never written to). */
export const NO_ARTEFACTS = Object.freeze([]) as unknown as PendingArtefact[];

/** A row to write and the screenshot artefacts to store before it. */
export interface RowWithArtefacts<R> {
  row: R;
  pending: PendingArtefact[];
}

const TrajectoryEndSchema = z.object({
  status: z.enum(["complete", "infra_failed", "aborted"]),
  endedAtMs: z.number(),
  finalObservation: ObservationSchema.optional(),
  outcome: VerifierResultSchema.optional(),
  error: ErrorInfoSchema.optional(),
});

/** The columns `finishTrajectory` sets. */
export interface TrajectoryEndRow {
  id: string;
  status: string;
  ended_at_ms: number;
  outcome: string | null;
  error: string | null;
  final_observation: string | null;
}

/** A trajectory's end without its final observation (stored apart). */
export const TrajectoryEndFieldsSchema = TrajectoryEndSchema.omit({ finalObservation: true });

export function encodeTrajectoryEnd(
  trajectoryId: string,
  end: TrajectoryEnd,
): RowWithArtefacts<TrajectoryEndRow> {
  // Fast path: a frozen final observation's text is cached, the rest checked by hand (or by its schema).
  const cachedFinal = end?.finalObservation && frozenObservationText(end.finalObservation);
  if (cachedFinal !== undefined) {
    const texts = fastEndTexts(end);
    if (texts !== undefined)
      return { row: endRow(trajectoryId, end, texts, cachedFinal), pending: NO_ARTEFACTS };
    const fields = TrajectoryEndFieldsSchema.safeParse(end);
    if (fields.success)
      return {
        row: endRow(trajectoryId, fields.data, endTexts(fields.data), cachedFinal),
        pending: NO_ARTEFACTS,
      };
  }
  const operation = `finishTrajectory(${trajectoryId})`;
  const e = check(TrajectoryEndSchema, end, operation, "trajectory end");
  const pending: PendingArtefact[] = [];
  const final = e.finalObservation && detachScreenshot(e.finalObservation, operation, pending);
  return { row: endRow(trajectoryId, e, endTexts(e), final ? JSON.stringify(final) : null), pending };
}

function endTexts(e: z.infer<typeof TrajectoryEndFieldsSchema>): {
  outcome: string | null;
  error: string | null;
} {
  return {
    outcome: e.outcome ? JSON.stringify(e.outcome) : null,
    error: e.error ? JSON.stringify(e.error) : null,
  };
}

function endRow(
  id: string,
  e: { status: string; endedAtMs: number },
  texts: { outcome: string | null; error: string | null },
  finalObservation: string | null,
): TrajectoryEndRow {
  return {
    id,
    status: e.status,
    ended_at_ms: e.endedAtMs,
    outcome: texts.outcome,
    error: texts.error,
    final_observation: finalObservation,
  };
}

export function encodeTree(tree: TreeRecord): TreeRow {
  const t = check(TreeRecordSchema, tree, `putTree(${tree?.id})`, "tree");
  return {
    ...ownerColumns(t),
    status: t.status,
    data: JSON.stringify(t.data),
  };
}

export function encodeNode(node: TreeNodeRecord): NodeRow {
  const n = check(TreeNodeRecordSchema, node, `putNodes(node ${node?.id})`, "tree node");
  return {
    tree_id: n.treeId,
    id: n.id,
    parent_id: n.parentId,
    depth: n.depth,
    status: n.status,
    data: JSON.stringify(n.data),
  };
}

const LimitSchema = z.number().int().nonnegative().optional();

export function checkLimit(limit: number | undefined): number | undefined {
  return check(LimitSchema, limit, "listRuns", "limit");
}

const PageSchema = z.object({
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive().max(10_000),
});

/** A listing's page, checked (offset ≥ 0, 1 ≤ limit ≤ 10,000). */
export function checkPage(page: PageOptions, operation: string): PageOptions {
  return check(PageSchema, page, operation, "page");
}

const MIME_EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "application/json": "json",
  "text/plain": "txt",
};

/** The file extension for an artefact's mime type (`bin` when unknown). */
export function extensionFor(mime: string): string {
  return MIME_EXTENSIONS[mime] ?? "bin";
}

const MimeSchema = z.string().min(1).max(255);

/** Validates `putArtefact`'s arguments and names the bytes by their sha256. */
export function encodeArtefact(bytes: Uint8Array, mime: string): PendingArtefact {
  check(MimeSchema, mime, "putArtefact", "mime type");
  check(z.instanceof(Uint8Array), bytes, "putArtefact", "bytes");
  return { sha256: sha256Hex(bytes), mime, bytes };
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Whether `value` can name an artefact (lowercase sha256 hex); other lookups find nothing. */
export function isArtefactId(value: string): boolean {
  return SHA256_HEX.test(value);
}
