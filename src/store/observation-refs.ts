import { type MiddlePieces, middleLength, middleText } from "./step-text.ts";

/** How many observation characters the SQLite store remembers the ids of before it starts afresh. */
export const OBSERVATION_CACHE_CHARS = 8_000_000;

/**
 * The ids of observation texts this connection has stored (table `observations`), so that a step whose
 * observation was seen before references the stored row instead of storing the text again. Ids are
 * learnt inside the write transaction that inserts them: when that transaction does not commit, the
 * caller calls `forget()` (the rows are gone). The cache is bounded by the characters it holds; once
 * full it starts afresh, and a text seen again is stored again (a duplicate row is harmless).
 * Connections do not share it: each stores the observations it has not seen itself.
 */
export interface ObservationRefs {
  /** The id of `text`, inserting it first (with `insert`) when this connection has not stored it. */
  idOf(text: string): number;
  forget(): void;
}

export function createObservationRefs(
  insert: (text: string) => number,
  maxChars = OBSERVATION_CACHE_CHARS,
): ObservationRefs {
  let ids = new Map<string, number>();
  let chars = 0;
  return {
    idOf(text) {
      const known = ids.get(text);
      if (known !== undefined) return known;
      if (chars + text.length > maxChars) {
        ids = new Map();
        chars = 0;
      }
      const id = insert(text);
      ids.set(text, id);
      chars += text.length;
      return id;
    },
    forget() {
      ids = new Map();
      chars = 0;
    },
  };
}

/**
 * The ids of step middles (`StepRow.middle`) this connection has stored (table `step_middles`), like
 * `ObservationRefs` but storing a middle only once it recurs: the first time one is seen `idOf` gives
 * undefined (the step keeps its text in its own row) and remembers it; from the second time on it is
 * stored once and referenced. So steps whose middles never repeat (a language model's raw text) cost a
 * map entry each, not a row of their own too. Middles are looked up by their pieces, not their joined
 * text: environments and policies that cache their info and action texts (FrozenLake does) hand the
 * same strings every time, whose hashes V8 keeps, where hashing the joined text of every step cost
 * about a fifth of the store's time per step. Bounded, learnt and forgotten as `ObservationRefs`.
 */
export interface MiddleRefs {
  /** The id of the middle when it recurs (inserting its text with `insert` the first time it does). */
  idOf(middle: MiddlePieces): number | undefined;
  forget(): void;
}

/** Marks a middle seen once and not stored (row ids start at 1). */
const SEEN_ONCE = 0;

export function createMiddleRefs(
  insert: (text: string) => number,
  maxChars = OBSERVATION_CACHE_CHARS,
): MiddleRefs {
  /** info text → action text → the rest (raw text, parse error, reward, flags) → id or SEEN_ONCE. */
  let ids = new Map<string, Map<string, Map<string, number>>>();
  let chars = 0;
  /** The innermost map for `middle`'s info and action, made when missing. */
  function byRest(middle: MiddlePieces): Map<string, number> {
    let byAction = ids.get(middle.info);
    if (byAction === undefined) {
      byAction = new Map();
      ids.set(middle.info, byAction);
    }
    let rest = byAction.get(middle.action);
    if (rest === undefined) {
      rest = new Map();
      byAction.set(middle.action, rest);
    }
    return rest;
  }
  return {
    idOf(middle) {
      const rest = `${middle.rawText}${middle.parseError},${middle.reward},${middle.terminated},${middle.truncated}`;
      const known = ids.get(middle.info)?.get(middle.action)?.get(rest);
      if (known !== undefined && known !== SEEN_ONCE) return known;
      if (known === undefined) {
        const length = middleLength(middle);
        if (chars + length > maxChars) {
          ids = new Map();
          chars = 0;
        }
        byRest(middle).set(rest, SEEN_ONCE);
        chars += length;
        return undefined;
      }
      const id = insert(middleText(middle));
      byRest(middle).set(rest, id);
      return id;
    },
    forget() {
      ids = new Map();
      chars = 0;
    },
  };
}
