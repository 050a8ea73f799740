import type { Random } from "./random.ts";

/** Id source. Ids are `prefix_` + an opaque suffix; inject a deterministic one in tests. */
export interface IdGenerator {
  next(prefix: string): string;
}

/** Sequential ids: `run_000001`, `run_000002`, ... (per prefix). */
export function createSequentialIds(): IdGenerator {
  const counters = new Map<string, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${String(n).padStart(6, "0")}`;
    },
  };
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * Ids that sort in creation order: `run_<time base36><counter base36, 4 chars>_<6 random chars>`.
 * The counter keeps ids made in the same millisecond ordered; the random part keeps processes apart.
 */
export function createTimeOrderedIds(nowMs: () => number, random: Random): IdGenerator {
  let counter = 0;
  return {
    next(prefix) {
      let suffix = "";
      for (let i = 0; i < 6; i++) suffix += ALPHABET[random.int(ALPHABET.length)];
      counter = (counter + 1) % 36 ** 4;
      const time = Math.floor(nowMs()).toString(36).padStart(9, "0");
      return `${prefix}_${time}${counter.toString(36).padStart(4, "0")}_${suffix}`;
    },
  };
}
