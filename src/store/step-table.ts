import type { Action, Observation, StepRecord } from "../core/index.ts";
import type { StepData } from "./encode-step.ts";
import {
  fastStepScalars,
  frozenActionText,
  frozenObservationText,
  frozenRecordText,
  parseErrorText,
  stepText,
  uncachedActionText,
  uncachedObservationText,
  uncachedRecordText,
} from "./step-text.ts";

const TERMINATED = 1;
const TRUNCATED = 2;
/** The row holds a schema-path step: its whole text is the row's first text. */
const SCHEMA_TEXT = 4;
/** Integers per row: the texts of observation, action, raw, parse error and info (ids), and flags. */
const INTS = 6;
/** Numbers per row: reward, time. */
const FLOATS = 2;
/** Texts up to this length are kept once per table (raw model outputs and page texts are longer). */
const SHARED_TEXT_MAX = 256;
/** Rows per chunk of the typed arrays: a full chunk is followed by a new one, nothing is copied. */
const CHUNK_BITS = 10;
const CHUNK_ROWS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_ROWS - 1;
/**
 * Chunks of closed tables, reused by the next tables of the process (at most this many): memory a
 * process has not touched before costs more to write than the rows written to it (measured: 38 µs for
 * a new 24 KB buffer against under 7 µs for a reused one, on a 2-core VM).
 */
const SPARE_CHUNKS_MAX = 256;
const spareInts: Int32Array[] = [];
const spareFloats: Float64Array[] = [];

/** Text ids every table starts with. */
const EMPTY = 0;
const NULL_ACTION = 1;

/**
 * The steps of one trajectory in a `StepTable`: its rows in index order, as runs of consecutive rows
 * (one run while nothing else writes between its steps; trajectories written at once interleave).
 */
export class StepRange {
  length = 0;
  /** The first run's first row and count. */
  private first = -1;
  private firstCount = 0;
  /** Further runs as [row, count] pairs. */
  private more: number[] | null = null;
  /** The row after the last one: the next step extends the last run when it lands there. */
  private next = -1;

  /** Records that step `length` is in `row`. */
  add(row: number): void {
    if (this.length === 0) {
      this.first = row;
      this.firstCount = 1;
    } else if (row !== this.next) {
      this.more ??= [];
      this.more.push(row, 1);
    } else if (this.more === null) {
      this.firstCount += 1;
    } else {
      const last = this.more.length - 1;
      this.more[last] = (this.more[last] as number) + 1;
    }
    this.next = row + 1;
    this.length += 1;
  }

  /** The rows of steps `from` ≤ i < `to` in order, walking the runs once. */
  rows(from: number, to: number): number[] {
    const out: number[] = [];
    const end = Math.min(to, this.length);
    let i = from;
    let runStart = 0;
    const visit = (row: number, count: number) => {
      for (; i < end && i < runStart + count; i++) out.push(row + (i - runStart));
      runStart += count;
    };
    visit(this.first, this.firstCount);
    const more = this.more ?? [];
    for (let k = 0; k < more.length && i < end; k += 2) visit(more[k] as number, more[k + 1] as number);
    return out;
  }
}

/**
 * The memory store's steps, all trajectories in one table: per step six integers (the ids of its
 * texts and its flags) and two numbers (reward, time) in typed arrays, its texts in one list. The
 * texts of deeply frozen observations, actions and infos (environments that cache them per state) are
 * found by identity and kept once; other short texts are kept once by value; long ones once per step.
 * A step whose texts are all kept once so adds nothing for the garbage collector to trace or move,
 * which was most of what the store cost per step. `texts(range)` gives what `stepDataText` gives for the data appended.
 */
export class StepTable {
  readonly #texts: string[] = ["", "null"];
  readonly #shared = new Map<string, number>([
    ["", EMPTY],
    ["null", NULL_ACTION],
  ]);
  readonly #observationIds = new WeakMap<object, number>();
  readonly #actionIds = new WeakMap<object, number>();
  readonly #infoIds = new WeakMap<object, number>();
  readonly #intChunks: Int32Array[] = [];
  readonly #floatChunks: Float64Array[] = [];
  /** The chunk rows are written to, and the next row's number. */
  #ints: Int32Array = new Int32Array(0);
  #floats: Float64Array = new Float64Array(0);
  #rows = 0;

  /**
   * Appends step `range.length` when it is valid for the fast path (what `fastStepPieces` takes, with
   * the index in order); false when it must take the schema path (then nothing was appended).
   */
  tryAppend(range: StepRange, step: StepRecord): boolean {
    if (!fastStepScalars(step) || step.index !== range.length) return false;
    const { reward, terminated, truncated, timeMs, raw } = step;
    const observation = this.#observationId(step.observation);
    if (observation < 0) return false;
    const action = step.action === null ? NULL_ACTION : this.#actionId(step.action);
    if (action < 0) return false;
    const parseError = step.parseError === undefined ? EMPTY : this.#parseErrorId(step.parseError);
    if (parseError < 0) return false;
    const info = this.#infoId(step.info);
    if (info < 0) return false;
    const flags = (terminated ? TERMINATED : 0) | (truncated ? TRUNCATED : 0);
    this.#write(range, observation, action, this.#textId(raw), parseError, info, flags, reward, timeMs);
    return true;
  }

  /** Appends step `range.length` from its validated data (the caller checked the index). */
  append(range: StepRange, data: StepData): void {
    if (typeof data === "string") {
      this.#write(range, this.#keep(data), EMPTY, EMPTY, EMPTY, EMPTY, SCHEMA_TEXT, 0, 0);
      return;
    }
    const flags = (data.terminated ? TERMINATED : 0) | (data.truncated ? TRUNCATED : 0);
    const id = (text: string) => this.#textId(text);
    this.#write(
      range,
      id(data.observation),
      id(data.action),
      id(data.raw),
      id(data.parseError),
      id(data.info),
      flags,
      data.reward,
      data.timeMs,
    );
  }

  /** The stored JSON texts of steps `from` ≤ i < `to` of `range` (all by default), in order. */
  texts(range: StepRange, from = 0, to = range.length): string[] {
    return range.rows(from, to).map((row, k) => this.#text(row, from + k));
  }

  /** The stored JSON text of step `index`, in `row`. */
  #text(row: number, index: number): string {
    const ints = this.#intChunks[row >>> CHUNK_BITS] as Int32Array;
    const floats = this.#floatChunks[row >>> CHUNK_BITS] as Float64Array;
    const n = INTS * (row & CHUNK_MASK);
    const f = FLOATS * (row & CHUNK_MASK);
    const texts = this.#texts;
    const flags = ints[n + 5] as number;
    if (flags & SCHEMA_TEXT) return texts[ints[n] as number] as string;
    return stepText({
      index,
      observation: texts[ints[n] as number] as string,
      action: texts[ints[n + 1] as number] as string,
      actionType: null,
      raw: texts[ints[n + 2] as number] as string,
      parseError: texts[ints[n + 3] as number] as string,
      reward: floats[f] as number,
      terminated: (flags & TERMINATED) !== 0,
      truncated: (flags & TRUNCATED) !== 0,
      info: texts[ints[n + 4] as number] as string,
      timeMs: floats[f + 1] as number,
    });
  }

  #write(
    range: StepRange,
    observation: number,
    action: number,
    raw: number,
    parseError: number,
    info: number,
    flags: number,
    reward: number,
    timeMs: number,
  ): void {
    const row = this.#rows;
    const at = row & CHUNK_MASK;
    if (at === 0) this.#addChunk();
    const ints = this.#ints;
    const n = INTS * at;
    ints[n] = observation;
    ints[n + 1] = action;
    ints[n + 2] = raw;
    ints[n + 3] = parseError;
    ints[n + 4] = info;
    ints[n + 5] = flags;
    const floats = this.#floats;
    floats[FLOATS * at] = reward;
    floats[FLOATS * at + 1] = timeMs;
    this.#rows = row + 1;
    range.add(row);
  }

  #addChunk(): void {
    // A spare chunk holds a closed table's rows: every slot of a row is written before it is read.
    this.#ints = spareInts.pop() ?? new Int32Array(INTS * CHUNK_ROWS);
    this.#floats = spareFloats.pop() ?? new Float64Array(FLOATS * CHUNK_ROWS);
    this.#intChunks.push(this.#ints);
    this.#floatChunks.push(this.#floats);
  }

  /** Empties the table (its store closed): its chunks go to the next tables. Nothing is read after. */
  release(): void {
    while (this.#intChunks.length > 0 && spareInts.length < SPARE_CHUNKS_MAX) {
      spareInts.push(this.#intChunks.pop() as Int32Array);
      spareFloats.push(this.#floatChunks.pop() as Float64Array);
    }
    this.#intChunks.length = 0;
    this.#floatChunks.length = 0;
    this.#texts.length = 0;
    this.#shared.clear();
    this.#rows = 0;
  }

  /** The id of `text` kept once (by value). */
  #share(text: string): number {
    let id = this.#shared.get(text);
    if (id === undefined) {
      id = this.#texts.push(text) - 1;
      this.#shared.set(text, id);
    }
    return id;
  }

  /** The id of `text` kept for this step alone. */
  #keep(text: string): number {
    return this.#texts.push(text) - 1;
  }

  #textId(text: string): number {
    return text.length <= SHARED_TEXT_MAX ? this.#share(text) : this.#keep(text);
  }

  #observationId(observation: Observation): number {
    if (observation === null || typeof observation !== "object") return -1;
    return this.#valueId(this.#observationIds, observation, frozenObservationText, uncachedObservationText);
  }

  #actionId(action: Action): number {
    if (action === null || typeof action !== "object") return -1;
    return this.#valueId(this.#actionIds, action, frozenActionText, uncachedActionText);
  }

  #infoId(info: Record<string, unknown>): number {
    if (info === null || typeof info !== "object") return -1;
    return this.#valueId(this.#infoIds, info, frozenRecordText, uncachedRecordText);
  }

  /**
   * The text id of an object: by identity when it is deeply frozen (its text checked once through
   * `frozen`), else its text from `uncached` (-1 when invalid).
   */
  #valueId<T extends object>(
    ids: WeakMap<object, number>,
    value: T,
    frozen: (v: T) => string | undefined,
    uncached: (v: T) => string | undefined,
  ): number {
    const known = ids.get(value);
    if (known !== undefined) return known;
    const frozenText = frozen(value);
    if (frozenText !== undefined) {
      const id = this.#share(frozenText);
      ids.set(value, id);
      return id;
    }
    const text = uncached(value);
    return text === undefined ? -1 : this.#textId(text);
  }

  #parseErrorId(error: StepRecord["parseError"]): number {
    const text = parseErrorText(error);
    return text === undefined ? -1 : this.#textId(text);
  }
}
