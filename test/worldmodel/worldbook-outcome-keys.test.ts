import { describe, expect, it } from "vitest";
import type { StateRecord } from "../../src/core/index.ts";
import { buildWorldbook, type TraceStep } from "../../src/worldmodel/index.ts";

/**
 * Induction tells outcomes apart by the next state each predicts, compared in canonical JSON (a
 * removed path, a value that JSON writes alike: NaN and null). Sixteen clicks that clear one field of the
 * same page: it is removed (10), emptied (4) or left alone (2); a NaN beside it reads as null after.
 */
function clicks(): TraceStep[] {
  return Array.from({ length: 16 }, (_, e) => {
    const before: StateRecord = { url: "u", "el.a.value": "x", "el.b.n": e % 4 === 0 ? Number.NaN : null };
    const after: StateRecord =
      e % 8 < 5
        ? { url: "u", "el.b.n": null }
        : e % 8 < 7
          ? { ...before, "el.a.value": "" }
          : { ...before, "el.b.n": null };
    return {
      episodeId: `e${e}`,
      taskId: "t",
      family: "web",
      step: 0,
      observation: { text: "p" },
      action: { type: "click", elementId: "a" },
      nextObservation: { text: "p" },
      reward: 0,
      terminated: false,
      truncated: true,
      state: before,
      nextState: after,
      source: "run:test",
    };
  });
}

describe("outcome attribution by predicted next state", () => {
  it("credits removed, emptied and unchanged fields to their own outcomes (NaN and null alike)", () => {
    const wb = buildWorldbook(clicks());
    expect(
      wb.rules.map((r) => ({
        id: r.id,
        outcomes: r.outcomes,
        counter: r.counterexamples,
        withheld: r.withheld,
      })),
    ).toEqual([
      {
        id: "click:a",
        outcomes: [
          { effects: [{ op: "delete", path: "el.a.value" }], count: 10, probability: 0.625 },
          { effects: [{ op: "set", path: "el.a.value", value: "" }], count: 4, probability: 0.25 },
          { effects: [], count: 2, probability: 0.125 },
        ],
        counter: 0,
        withheld: 0,
      },
    ]);
    const outcomes = wb.evidence.map((e) =>
      e.attribution.status === "attributed" ? e.attribution.outcome : -1,
    );
    expect(outcomes).toEqual([0, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 1, 1, 2, 0, 0]);
  });
});
