import { z } from "zod";
import { seedKey } from "./hash.ts";
import { sha256Head } from "./sha256-head.ts";

/** The full state of a generator: four 32-bit words (xoshiro128**). Serialisable, so snapshots are exact. */
export const RandomStateSchema = z.tuple([
  z.number().int(),
  z.number().int(),
  z.number().int(),
  z.number().int(),
]);
export type RandomState = z.infer<typeof RandomStateSchema>;

/** A seeded pseudo-random generator whose state can be saved and restored exactly. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: ReadonlyArray<T>): T;
  /** A new array, shuffled (Fisher-Yates). */
  shuffle<T>(items: ReadonlyArray<T>): T[];
  /** Index drawn with probability proportional to `weights` (non-negative, not all zero). */
  weighted(weights: ReadonlyArray<number>): number;
  getState(): RandomState;
  setState(state: RandomState): void;
  /** An independent generator derived from this one's seed key and a purpose (does not advance this one). */
  derive(...purpose: ReadonlyArray<string | number>): Random;
}

/** The sum of `weights` as `Random.weighted` needs it; throws a RangeError on invalid weights. */
export function weightTotal(weights: ReadonlyArray<number>): number {
  let total = 0;
  for (const w of weights) {
    if (!(w >= 0) || !Number.isFinite(w)) throw new RangeError(`Random.weighted got an invalid weight ${w}`);
    total += w;
  }
  if (total <= 0) throw new RangeError("Random.weighted needs at least one positive weight");
  return total;
}

/**
 * The index `Random.weighted` draws for the uniform number `u` in [0, 1) and weights of sum `total`
 * (from `weightTotal`), for hot paths that validate their fixed weights once: `weighted(w)` is
 * `weightedIndex(next(), w, weightTotal(w))`.
 */
export function weightedIndex(u: number, weights: ReadonlyArray<number>, total: number): number {
  let r = u * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i] as number;
    if (r < 0) return i;
  }
  // Floating-point remainder: the last index with a positive weight.
  for (let i = weights.length - 1; i >= 0; i--) if ((weights[i] as number) > 0) return i;
  return weights.length - 1;
}

/**
 * xoshiro128** over four int32 fields (kept as small integers, no array bounds checks or heap numbers
 * on the per-draw path); every operation is mod 2^32, so the stream is the unsigned algorithm's exactly.
 */
class Xoshiro128 implements Random {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  constructor(
    private readonly key: string,
    state?: RandomState,
  ) {
    const s = state ?? stateFromKey(key);
    this.s0 = s[0] | 0;
    this.s1 = s[1] | 0;
    this.s2 = s[2] | 0;
    this.s3 = s[3] | 0;
  }

  private nextUint32(): number {
    const s1 = this.s1;
    const x = Math.imul(s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s1 << 9;
    const s2 = this.s2 ^ this.s0;
    const s3 = this.s3 ^ s1;
    this.s1 = s1 ^ s2;
    this.s0 = this.s0 ^ s3;
    this.s2 = s2 ^ t;
    this.s3 = (s3 << 11) | (s3 >>> 21);
    return result;
  }

  next(): number {
    // 53 bits of randomness from two draws.
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`Random.int needs a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  pick<T>(items: ReadonlyArray<T>): T {
    if (items.length === 0) throw new RangeError("Random.pick needs a non-empty array");
    return items[this.int(items.length)] as T;
  }

  shuffle<T>(items: ReadonlyArray<T>): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }

  weighted(weights: ReadonlyArray<number>): number {
    return weightedIndex(this.next(), weights, weightTotal(weights));
  }

  getState(): RandomState {
    return [this.s0 >>> 0, this.s1 >>> 0, this.s2 >>> 0, this.s3 >>> 0];
  }

  setState(state: RandomState): void {
    const s = RandomStateSchema.parse(state);
    this.s0 = s[0] | 0;
    this.s1 = s[1] | 0;
    this.s2 = s[2] | 0;
    this.s3 = s[3] | 0;
  }

  derive(...purpose: ReadonlyArray<string | number>): Random {
    return new Xoshiro128(seedKey(this.key, ...purpose));
  }
}

function stateFromKey(key: string): RandomState {
  const s = sha256Head(key);
  if (s[0] === 0 && s[1] === 0 && s[2] === 0 && s[3] === 0) s[0] = 1;
  return s;
}

/** A generator seeded from the sha256 of `parts.join('|')`: the same parts give the same stream everywhere. */
export function createRandom(...parts: ReadonlyArray<string | number>): Random {
  return new Xoshiro128(seedKey(...parts));
}

/** A generator that resumes from a saved state. */
export function restoreRandom(state: RandomState, key = "restored"): Random {
  return new Xoshiro128(key, RandomStateSchema.parse(state));
}
