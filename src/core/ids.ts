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

/** Ids ordered by time, then random: `run_<time base36>_<8 random chars>`. */
export function createTimeOrderedIds(nowMs: () => number, random: Random): IdGenerator {
  return {
    next(prefix) {
      let suffix = "";
      for (let i = 0; i < 8; i++) suffix += ALPHABET[random.int(ALPHABET.length)];
      return `${prefix}_${Math.floor(nowMs()).toString(36)}_${suffix}`;
    },
  };
}
