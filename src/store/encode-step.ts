import { type StepRecord, StepRecordSchema } from "../core/index.ts";
import {
  check,
  detachScreenshot,
  NO_ARTEFACTS,
  type PendingArtefact,
  type RowWithArtefacts,
} from "./encode.ts";
import type { StepRow } from "./rows.ts";
import { fastStepPieces, type StepPieces, stepText } from "./step-text.ts";

/* Encoding of appended steps, shared by both stores: the fast path first, the step schema otherwise. */

/** A validated step's stored data: pieces on the fast path (see `StepPieces`), else its JSON text. */
export type StepData = StepPieces | string;

export function stepDataText(data: StepData): string {
  return typeof data === "string" ? data : stepText(data);
}

/**
 * Validates a step; its stored data comes back as pieces (on the fast path) or text, its screenshot
 * bytes as `pending`, and the columns the SQLite store indexes beside them.
 */
export function encodeStepData(
  step: StepRecord,
  operation: () => string,
): RowWithArtefacts<StepData> & {
  columns: Omit<StepRow, "trajectory_id" | "data">;
} {
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
  const op = operation();
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

/** Validates a step and encodes its row; its screenshot bytes come back as `pending`. */
export function encodeStep(trajectoryId: string, step: StepRecord): RowWithArtefacts<StepRow> {
  const { row, pending, columns } = encodeStepData(step, appendOperation(trajectoryId, step));
  return { row: { trajectory_id: trajectoryId, ...columns, data: stepDataText(row) }, pending };
}
