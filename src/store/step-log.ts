import type { StepData } from "./encode-step.ts";
import { stepText } from "./step-text.ts";

const TERMINATED = 1;
const TRUNCATED = 2;
/** The step took the schema path: its text is in `StepLog`'s schema texts. */
const SCHEMA_TEXT = 4;
/** Texts per step: observation, action, raw, parse error, info. */
const TEXTS = 5;
/** Numbers per step: reward, time, flags. */
const NUMBERS = 3;

/**
 * The stored steps of one trajectory in the memory store, in index order, in two arrays: the shared
 * texts (observation, action, raw, parse error, info) five per step, and reward, time and flags three
 * per step in an array of numbers only, which V8 keeps unboxed in one backing store. A long run so
 * keeps a few pointers per step instead of an object and a boxed number for the garbage collector to
 * move; schema-path steps keep their text. `text(i)` is what `stepDataText` gives for the data pushed.
 */
export class StepLog {
  #length = 0;
  readonly #texts: string[] = [];
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
      this.#texts.push("", "", "", "", "");
    } else {
      const flags = (data.terminated ? TERMINATED : 0) | (data.truncated ? TRUNCATED : 0);
      this.#numbers.push(data.reward, data.timeMs, flags);
      this.#texts.push(data.observation, data.action, data.raw, data.parseError, data.info);
    }
    this.#length = i + 1;
  }

  /** The stored JSON text of step `i` (0 ≤ i < length). */
  text(i: number): string {
    const n = NUMBERS * i;
    const flags = this.#numbers[n + 2] as number;
    if (flags & SCHEMA_TEXT) return this.#schemaTexts?.get(i) as string;
    const t = TEXTS * i;
    const texts = this.#texts;
    return stepText({
      index: i,
      observation: texts[t] as string,
      action: texts[t + 1] as string,
      actionType: null,
      raw: texts[t + 2] as string,
      parseError: texts[t + 3] as string,
      reward: this.#numbers[n] as number,
      terminated: (flags & TERMINATED) !== 0,
      truncated: (flags & TRUNCATED) !== 0,
      info: texts[t + 4] as string,
      timeMs: this.#numbers[n + 1] as number,
    });
  }

  /** The texts of every step, in order. */
  texts(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.#length; i++) out.push(this.text(i));
    return out;
  }
}
