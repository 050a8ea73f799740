import { hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRandom, restoreRandom, stableSeed } from "../../src/core/index.ts";
import { sha256Head } from "../../src/core/sha256-head.ts";

/** The reference: the native digest's first four big-endian words. */
function nativeHead(text: string): number[] {
  const d = hash("sha256", text, "buffer");
  return [d.readUInt32BE(0), d.readUInt32BE(4), d.readUInt32BE(8), d.readUInt32BE(12)];
}

describe("sha256Head (the seeds' in-process SHA-256)", () => {
  it("equals the native digest on every length around the one-block limit and on non-ASCII keys", () => {
    const texts: string[] = [];
    // Every length 0..80 (55 is the longest one-block message, 56 the first of two), varied bytes.
    for (let n = 0; n <= 80; n++) {
      texts.push(Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7 + n) % 95))).join(""));
      texts.push("\u007f".repeat(n));
    }
    texts.push(
      "frozenlake|8x8|0",
      "a|b",
      "é",
      "日本|語",
      "\u{1F600}|emoji",
      `${"a".repeat(54)}é`,
      "\u0000|nul",
    );
    for (let i = 0; i < 500; i++) texts.push(`frozenlake|random-8x8-${i % 13}|${i * 7919}`);
    for (const text of texts) expect(sha256Head(text), JSON.stringify(text)).toEqual(nativeHead(text));
  });

  it("seeds createRandom and stableSeed from the same digest as before", () => {
    for (const key of ["frozenlake|8x8|3", "chess|mate-in-1|0", "k".repeat(70), "ü|1"]) {
      // A fresh stream starts from the digest's words (none is all-zero for these keys).
      expect(createRandom(key).getState()).toEqual(nativeHead(key));
      expect(stableSeed(key)).toBe(nativeHead(key)[0]);
    }
    // A stream restored from a saved state continues the same draws.
    const r = createRandom("frozenlake", "8x8", 41);
    r.next();
    const copy = restoreRandom(r.getState());
    expect(Array.from({ length: 5 }, () => copy.next())).toEqual(Array.from({ length: 5 }, () => r.next()));
  });
});
