import { describe, expect, it } from "vitest";
import type { Action, StateRecord } from "../../../src/core/index.ts";
import { actionKey, createSimulator, createWorkspace } from "../../../src/worldmodel/index.ts";
import { HAND_STATE, handBook, handEvidence, handStart, rule } from "./helpers.ts";

const ctx = { taskId: "t" };

const clickE1: Action = { type: "click", elementId: "e1" };

describe("retrieval proposer", () => {
  const base: StateRecord = { "el.e1.checked": false, "el.e2.checked": false, count: 1 };
  const book = handBook([], {
    schemas: {
      actions: [],
      fields: [
        { path: "el.e1.checked", type: "boolean", mutable: true },
        { path: "el.e2.checked", type: "boolean", mutable: true },
        { path: "count", type: "number", mutable: true },
      ],
    },
    invariants: { constantWithinEpisode: [], ranges: [{ path: "count", min: 0, max: 5 }], values: [] },
    // Episode a: click e1 when count is 1 checks it; episode b: from count 3, the same click also counts.
    starts: [handStart("a", base), handStart("b", { ...base, count: 3 })],
    evidence: [
      handEvidence(
        "a#0",
        0,
        clickE1,
        [{ path: "el.e1.checked", before: false, after: true }],
        [{ op: "set", path: "el.e1.checked", value: true }],
      ),
      handEvidence(
        "b#0",
        0,
        clickE1,
        [
          { path: "count", before: 3, after: 4 },
          { path: "el.e1.checked", before: false, after: true },
        ],
        [
          { op: "increment", path: "count", value: 1 },
          { op: "set", path: "el.e1.checked", value: true },
        ],
      ),
    ],
  });

  it("copies the nearest build transition: fewest paths differing from its rebuilt before state", async () => {
    const sim = createSimulator(book, { system: "retrieval" });
    const near1 = await sim.step(base, clickE1, ctx, 0);
    expect(near1.trace.fired).toEqual(["a#0"]);
    expect(near1.state).toEqual({ ...base, "el.e1.checked": true });
    const near3 = await sim.step({ ...base, count: 3 }, clickE1, ctx, 0);
    expect(near3.trace.fired).toEqual(["b#0"]);
    expect(near3.state.count).toBe(4);
  });

  it("an action no build step had borrows the same action type's evidence, its argument renamed in paths", async () => {
    const step = await createSimulator(book, { system: "gates" }).step(
      base,
      { type: "click", elementId: "e2" },
      ctx,
      0,
    );
    expect(step.trace.fired).toEqual(["a#0"]);
    expect(step.state).toEqual({ ...base, "el.e2.checked": true });
  });

  it("the full system falls back to retrieval through the validation gate, unless evidence is ablated", async () => {
    const contradicted = rule({
      id: "click:e1",
      action: { type: "click", elementId: "e1" },
      conditions: [{ path: "el.e1.checked", op: "eq", value: true }],
    });
    const withRule = { ...book, rules: [contradicted] };
    const full = await createSimulator(withRule).step(base, clickE1, ctx, 0);
    expect(full.trace.candidates[0]?.verdict).toBe("contradicted");
    expect(full.trace.rejected[0]?.stage).toBe("applicability");
    expect(full.trace.fired).toEqual(["a#0"]);
    expect(full.state["el.e1.checked"]).toBe(true);
    const ablated = await createSimulator(withRule, { useEvidence: false }).step(base, clickE1, ctx, 0);
    expect(ablated.trace.unknown).toBe(true);
    expect(ablated.state).toEqual(base);
    const evidenceOnly = await createSimulator(withRule, { useAbstractions: false }).step(
      base,
      clickE1,
      ctx,
      0,
    );
    expect(evidenceOnly.trace.fired).toEqual(["a#0"]);
    expect(evidenceOnly.trace.candidates).toEqual([]);
  });

  it("retrieval prefers this episode's own earlier transitions (episodic memory) on a tie", async () => {
    const ws = createWorkspace(
      book,
      { taskId: "t", state: { ...base, count: 2 } },
      createSimulator(book, { system: "retrieval" }),
    );
    // count 2 is as far from a#0's before state (count 1) as from b#0's (count 3): the tie goes to the
    // most frequent effect set, then id order → a#0.
    const first = await ws.step(clickE1, 0);
    expect(first.trace.fired).toEqual(["a#0"]);
    ws.restore({
      taskId: "t",
      state: { ...base, count: 2 },
      steps: 0,
      memory: [
        {
          action: actionKey(clickE1),
          facts: [{ path: "count", before: 2, after: 5 }],
          effects: [{ op: "increment", path: "count", value: 3 }],
          reward: 0,
          terminated: false,
          before: { ...base, count: 1 },
        },
      ],
    });
    const remembered = await ws.step(clickE1, 0);
    expect(remembered.trace.fired).toEqual(["memory#0"]);
    expect(remembered.state.count).toBe(5);
    expect(ws.memory()).toHaveLength(2);
  });

  it("the copy system keeps the state and the rules system applies the first matching rule without gates", async () => {
    const copy = await createSimulator(book, { system: "copy" }).step(HAND_STATE, clickE1, ctx, 0);
    expect(copy.state).toEqual(HAND_STATE);
    expect(copy.trace.fired).toEqual([]);
    const conflicted = rule({
      id: "conflicted",
      action: { type: "click", elementId: "e1" },
      status: "conflicted",
      outcomes: [{ effects: [{ op: "set", path: "count", value: 99 }], count: 10, probability: 1 }],
    });
    const rules = await createSimulator({ ...book, rules: [conflicted] }, { system: "rules" }).step(
      base,
      clickE1,
      ctx,
      0,
    );
    expect(rules.trace.fired).toEqual(["conflicted"]);
    expect(rules.state.count).toBe(99);
  });
});
