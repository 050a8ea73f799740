import { describe, expect, it } from "vitest";
import {
  type Action,
  type Candidate,
  fingerprintAction,
  INVALID_FINGERPRINT,
  normalizeKeys,
} from "../../src/core/index.ts";
import { bucketCandidates } from "../../src/search/buckets.ts";

const opts = { gridPx: 50, typeTextChars: 30 };
const fp = (a: Action | null) => fingerprintAction(a, opts);

describe("behaviour fingerprints", () => {
  it("quantises coordinates on the grid and uses element ids when given", () => {
    expect(fp({ type: "click", x: 10, y: 20 })).toBe("click:0,0");
    expect(fp({ type: "click", x: 49.9, y: 0 })).toBe("click:0,0");
    expect(fp({ type: "click", x: 50, y: 0 })).toBe("click:1,0");
    expect(fp({ type: "click", x: 120, y: 260 })).toBe("click:2,5");
    expect(fp({ type: "click", elementId: "12" })).toBe("click:#12");
    expect(fp({ type: "double_click", x: 120, y: 260 })).toBe("double_click:2,5");
    expect(fp({ type: "right_click", elementId: "a" })).toBe("right_click:#a");
  });

  it("fingerprints drags by both endpoints", () => {
    expect(fp({ type: "drag", from: { x: 10, y: 10 }, to: { x: 110, y: 60 } })).toBe("drag:0,0->2,1");
    expect(fp({ type: "drag", from: { x: 10, y: 10 }, to: { x: 10, y: 160 } })).not.toBe(
      fp({ type: "drag", from: { x: 10, y: 10 }, to: { x: 110, y: 60 } }),
    );
    expect(fp({ type: "drag", from: { elementId: "3" }, to: { elementId: "7" } })).toBe("drag:#3->#7");
  });

  it("normalises typed text: whitespace collapsed, lower case, 30 characters", () => {
    expect(fp({ type: "type", text: "  Hello   World\n" })).toBe("type:hello world");
    const long = "A".repeat(40);
    expect(fp({ type: "type", text: long })).toBe(`type:${"a".repeat(30)}`);
  });

  it("sorts key modifiers and keeps the scroll direction even with a position", () => {
    expect(normalizeKeys("Shift+Ctrl+A")).toBe("control+shift+a");
    expect(fp({ type: "key", keys: "ctrl+shift+a" })).toBe(fp({ type: "key", keys: "Shift+Control+a" }));
    expect(fp({ type: "scroll", direction: "down", x: 100, y: 100 })).toBe("scroll:down");
    expect(fp({ type: "scroll", direction: "up", x: 100, y: 100 })).toBe("scroll:up");
  });

  it("zero-argument actions by type alone; unparseable output is the shared invalid bucket", () => {
    expect(fp({ type: "wait", ms: 100 })).toBe("wait");
    expect(fp({ type: "wait", ms: 3000 })).toBe("wait");
    expect(fp({ type: "done" })).toBe("done");
    expect(fp({ type: "done", answer: "x" })).toBe("done");
    expect(fp(null)).toBe(INVALID_FINGERPRINT);
    expect(fp({ type: "move", direction: "left" })).toBe("move:left");
  });
});

describe("buckets", () => {
  const c = (action: Action | null): Candidate =>
    action
      ? { action, raw: JSON.stringify(action) }
      : { action: null, raw: "garbage", parseError: { code: "x", message: "x" } };

  it("ranks by size, breaks ties by fingerprint, picks the most frequent exact action", () => {
    const r = bucketCandidates(
      [
        c({ type: "click", x: 10, y: 10 }),
        c({ type: "click", x: 12, y: 12 }),
        c({ type: "click", x: 12, y: 12 }),
        c({ type: "type", text: "b" }),
        c({ type: "type", text: "B " }),
        c({ type: "scroll", direction: "down" }),
        c({ type: "key", keys: "Enter" }),
        c(null),
        c(null),
      ],
      opts,
    );
    expect(r.invalid).toBe(2);
    expect(r.buckets.map((b) => [b.fingerprint, b.size])).toEqual([
      ["click:0,0", 3],
      ["type:b", 2],
      ["key:enter", 1],
      ["scroll:down", 1],
    ]);
    expect(r.buckets[0]?.representative).toEqual({ type: "click", x: 12, y: 12 });
    // Tie between "b" and "B " (one each): the smaller canonical JSON wins.
    expect(r.buckets[1]?.representative).toEqual({ type: "type", text: "B " });
  });

  it("is independent of candidate order", () => {
    const list = [
      c({ type: "click", elementId: "2" }),
      c({ type: "click", elementId: "1" }),
      c({ type: "wait", ms: 10 }),
      c({ type: "wait", ms: 20 }),
    ];
    const a = bucketCandidates(list, opts);
    const b = bucketCandidates([...list].reverse(), opts);
    expect(b).toEqual(a);
    expect(a.buckets.map((x) => x.fingerprint)).toEqual(["wait", "click:#1", "click:#2"]);
    expect(a.buckets[0]?.representative).toEqual({ type: "wait", ms: 10 });
  });
});
