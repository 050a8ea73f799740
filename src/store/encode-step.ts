import { type StepRecord, StepRecordSchema } from "../core/index.ts";
import {
  check,
  detachScreenshot,
  NO_ARTEFACTS,
  type PendingArtefact,
  type RowWithArtefacts,
} from "./encode.ts";
import type { StepRow } from "./rows.ts";
import { fastStepPieces, middlePieces, type StepPieces, stepEnd, stepText } from "./step-text.ts";

/* Encoding of appended steps, shared by both stores: the fast path first, the step schema otherwise. */

/** A validated step's stored data: pieces on the fast path (see `StepPieces`), else its JSON text. */
export type StepData = StepPieces | string;

export function stepDataText(data: StepData): string {
  return typeof data === "string" ? data : stepText(data);
}

/** The columns the SQLite store keeps beside a step's text. */
type StepColumns = Omit<StepRow, "trajectory_id" | "observation" | "middle" | "data">;

/**
 * Validates a step; its stored data comes back as pieces (on the fast path) or text, its screenshot
 * bytes as `pending`, and the columns the SQLite store keeps beside them.
 */
export function encodeStepData(
  step: StepRecord,
  operation: () => string,
): RowWithArtefacts<StepData> & { columns: StepColumns } {
  const pieces = fastStepPieces(step);
  if (pieces !== undefined) {
    const columns = {
      idx: pieces.index,
      action_type: pieces.actionType,
      reward: pieces.reward,
      terminated: pieces.terminated ? 1 : 0,
      truncated: pieces.truncated ? 1 : 0,
    } as const;
    return { row: pieces, pending: NO_ARTEFACTS, columns };
  }
  return schemaStepData(step, operation());
}

/** The schema path of `encodeStepData`: the step's JSON text as the step schema gives it. */
function schemaStepData(step: StepRecord, op: string): RowWithArtefacts<string> & { columns: StepColumns } {
  const s = check(StepRecordSchema, step, op, "step");
  const pending: PendingArtefact[] = [];
  const stored = { ...s, observation: detachScreenshot(s.observation, op, pending) };
  const columns = {
    idx: s.index,
    action_type: s.action?.type ?? null,
    reward: s.reward,
    terminated: s.terminated ? 1 : 0,
    truncated: s.truncated ? 1 : 0,
  } as const;
  return { row: JSON.stringify(stored), pending, columns };
}

/** The operation named in a step's errors. */
export function appendOperation(trajectoryId: string, step: StepRecord): () => string {
  return () => `appendStep(${trajectoryId}, step ${step?.index})`;
}

/**
 * The row of a step that takes the fast path (see `fastStepPieces`), its observation text and middle
 * split off (`StepRow.observation`, `StepRow.middle`) for the store to keep once; undefined when the step
 * must take `encodeStep`. Built as one literal: the object spreads it replaced showed in the SQLite
 * store's CPU profile.
 */
export function fastStepRow(trajectoryId: string, step: StepRecord): StepRow | undefined {
  const p = fastStepPieces(step);
  if (p === undefined) return undefined;
  return {
    trajectory_id: trajectoryId,
    idx: p.index,
    action_type: p.actionType,
    reward: p.reward,
    terminated: p.terminated ? 1 : 0,
    truncated: p.truncated ? 1 : 0,
    observation: p.observation,
    middle: middlePieces(p),
    data: stepEnd(p.timeMs),
  };
}

/**
 * Validates a step and encodes its row; its screenshot bytes come back as `pending`. A fast-path step's
 * observation text and middle are split off for the store to keep once (`fastStepRow`); a schema-path
 * step keeps its whole text in `data`.
 */
export function encodeStep(trajectoryId: string, step: StepRecord): RowWithArtefacts<StepRow> {
  const fast = fastStepRow(trajectoryId, step);
  if (fast !== undefined) return { row: fast, pending: NO_ARTEFACTS };
  const { row, pending, columns } = schemaStepData(step, appendOperation(trajectoryId, step)());
  return {
    row: { trajectory_id: trajectoryId, ...columns, observation: null, middle: null, data: row },
    pending,
  };
}
