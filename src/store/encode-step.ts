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

const TERMINATED = 1;
const TRUNCATED = 2;
/** The step took the schema path: its text is in `StepLog.schemaTexts`. */
const SCHEMA_TEXT = 4;

/**
 * The stored steps of one trajectory in the memory store, in index order. Fast-path pieces are kept
 * column by column (shared texts in arrays, numbers and flags in one array of numbers), so a long run keeps
 * a few pointers per step instead of an object and a boxed number for the garbage collector to move;
 * schema-path steps keep their text. `text(i)` is what `stepDataText` gives for the data pushed.
 */
export class StepLog {
  #length = 0;
  readonly #observation: string[] = [];
  readonly #action: string[] = [];
  readonly #raw: string[] = [];
  readonly #parseError: string[] = [];
  readonly #info: string[] = [];
  /**
   * reward, timeMs and flags of step i at 3i, 3i + 1 and 3i + 2: an array of numbers only, which V8
   * keeps unboxed in one backing store (a typed array's buffer costs microseconds to allocate, and a
   * log is made for every trajectory).
   */
  readonly #numbers: number[] = [];
  /** Made with the first schema-path step (a Map costs about a microsecond to make). */
  #schemaTexts: Map<number, string> | undefined;

  get length(): number {
    return this.#length;
  }

  /** Appends the data of step `length` (the caller checks the index). */
  push(data: StepData): void {
    const i = this.#length;
    if (typeof data === "string") {
      this.#schemaTexts ??= new Map();
      this.#schemaTexts.set(i, data);
      this.#numbers.push(0, 0, SCHEMA_TEXT);
      this.#observation.push("");
      this.#action.push("");
      this.#raw.push("");
      this.#parseError.push("");
      this.#info.push("");
    } else {
      const flags = (data.terminated ? TERMINATED : 0) | (data.truncated ? TRUNCATED : 0);
      this.#numbers.push(data.reward, data.timeMs, flags);
      this.#observation.push(data.observation);
      this.#action.push(data.action);
      this.#raw.push(data.raw);
      this.#parseError.push(data.parseError);
      this.#info.push(data.info);
    }
    this.#length = i + 1;
  }

  /** The stored JSON text of step `i` (0 ≤ i < length). */
  text(i: number): string {
    const flags = this.#numbers[3 * i + 2] as number;
    if (flags & SCHEMA_TEXT) return this.#schemaTexts?.get(i) as string;
    return stepText({
      index: i,
      observation: this.#observation[i] as string,
      action: this.#action[i] as string,
      actionType: null,
      raw: this.#raw[i] as string,
      parseError: this.#parseError[i] as string,
      reward: this.#numbers[3 * i] as number,
      terminated: (flags & TERMINATED) !== 0,
      truncated: (flags & TRUNCATED) !== 0,
      info: this.#info[i] as string,
      timeMs: this.#numbers[3 * i + 1] as number,
    });
  }

  /** The texts of every step, in order. */
  texts(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.#length; i++) out.push(this.text(i));
    return out;
  }
}
