import { describe, expect, it } from "vitest";
import { passAtK, passHatK } from "../../src/eval/pass-at-k.ts";

/** Brute force: over all k-subsets of n samples (c successes), the share with ≥ 1 / all successes. */
function brute(n: number, c: number, k: number): { any: number; all: number } {
  const outcomes = Array.from({ length: n }, (_, i) => i < c);
  let subsets = 0;
  let any = 0;
  let all = 0;
  const pick = (start: number, left: number, hits: number, size: number) => {
    if (left === 0) {
      subsets += 1;
      if (hits > 0) any += 1;
      if (hits === size) all += 1;
      return;
    }
    for (let i = start; i <= n - left; i++) pick(i + 1, left - 1, hits + (outcomes[i] ? 1 : 0), size);
  };
  pick(0, k, 0, k);
  return { any: any / subsets, all: all / subsets };
}

describe("pass@k", () => {
  it("matches brute-force enumeration on every small case", () => {
    for (let n = 1; n <= 9; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          const b = brute(n, c, k);
          expect(passAtK(n, c, k), `n=${n} c=${c} k=${k}`).toBeCloseTo(b.any, 12);
          expect(passHatK(n, c, k), `n=${n} c=${c} k=${k}`).toBeCloseTo(b.all, 12);
        }
      }
    }
  });

  it("hand-computed values and edge cases", () => {
    expect(passAtK(10, 1, 1)).toBeCloseTo(0.1);
    expect(passAtK(10, 2, 8)).toBeCloseTo(1 - 1 / 45); // C(8,8)/C(10,8) = 1/45
    expect(passAtK(10, 1, 8)).toBeCloseTo(1 - 9 / 45); // C(9,8)/C(10,8) = 9/45
    expect(passAtK(4, 0, 8)).toBe(0);
    expect(passAtK(4, 1, 8)).toBe(1);
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(3, 1, 0)).toThrow(RangeError);
  });
});
