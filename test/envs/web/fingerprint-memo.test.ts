import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../../src/core/index.ts";
import { fingerprintWithDigests } from "../../../src/envs/web/fingerprint-diff.ts";
import { FingerprintMemo, fingerprintOf, partDigests } from "../../../src/envs/web/index.ts";

/**
 * The memo keeps the part digests of recent fingerprints, not the parts; the fingerprint and the
 * digests come from one serialisation of each part and must be what `fingerprintOf` and a digest
 * of each part on its own give.
 */

/** Each part's digest, computed on its own (sha256 of its canonical JSON; a missing part's is null's). */
const eachPart = (parts: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, sha256Hex(canonicalJson(v ?? null))]));

const CASES: Array<Record<string, unknown>> = [
  {
    url: "/tasks/a/",
    axtree: '[1] button "Go"\ntext "é ✓ \\u2028"',
    focused: "",
    dom: "<BODY ><P >#x</P></BODY>",
    globals: {
      done: false,
      rawReward: 0,
      reason: null,
      ready: true,
      rng: [1, 2],
      verifier: { b: 1, a: [{ z: 1, y: undefined }] },
    },
    ended: false,
  },
  { url: "/b", noise: { tabs: [], layer: null }, tab: undefined, ended: true },
  { b: 1, a: null, c: undefined },
  // Keys JSON orders by number first: the parts' JSON is not their sorted concatenation here.
  { 10: "x", 9: "y", url: "/c" },
  {},
];

describe("fingerprint memo", () => {
  it("the fingerprint and part digests are fingerprintOf's and each part's own", () => {
    for (const parts of CASES) {
      const { print, digests } = fingerprintWithDigests(parts);
      expect(print).toBe(fingerprintOf(parts));
      expect(digests).toEqual(eachPart(parts));
      expect(partDigests(parts)).toEqual(eachPart(parts));
    }
  });

  it("remembers the part digests of the latest fingerprints, oldest dropped", () => {
    const memo = new FingerprintMemo(2);
    const prints = CASES.slice(0, 3).map((parts) => memo.remember(parts));
    expect(prints).toEqual(CASES.slice(0, 3).map(fingerprintOf));
    expect(memo.get(prints[0] as string)).toBeUndefined();
    expect(memo.get(prints[1] as string)).toEqual(eachPart(CASES[1] as Record<string, unknown>));
    expect(memo.get(prints[2] as string)).toEqual(eachPart(CASES[2] as Record<string, unknown>));
    // Remembered again, a fingerprint is the newest: the other one goes first.
    memo.remember(CASES[1] as Record<string, unknown>);
    memo.remember(CASES[3] as Record<string, unknown>);
    expect(memo.get(prints[1] as string)).toBeDefined();
    expect(memo.get(prints[2] as string)).toBeUndefined();
  });
});
