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
