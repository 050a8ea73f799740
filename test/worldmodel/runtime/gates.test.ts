import { describe, expect, it } from "vitest";
import type { Action } from "../../../src/core/index.ts";
import { createSimulator, createWorkspace } from "../../../src/worldmodel/index.ts";
import { HAND_STATE, handBook, rule } from "./helpers.ts";

const click: Action = { type: "click", elementId: "box" };
const ctx = { taskId: "t" };

describe("applicability gate", () => {
  it("a contradicted rule is not applied: a false condition, or a conflicted status", async () => {
    const checks = rule({
      id: "check",
      action: { type: "click", elementId: "box" },
      conditions: [{ path: "box.checked", op: "eq", value: true }],
      outcomes: [{ effects: [{ op: "set", path: "box.checked", value: false }], count: 10, probability: 1 }],
    });
    const conflicted = rule({
      id: "conflicted",
      action: { type: "click", elementId: "box" },
      status: "conflicted",
      counterexamples: 3,
      outcomes: [{ effects: [{ op: "set", path: "count", value: 3 }], count: 10, probability: 1 }],
    });
    const sim = createSimulator(handBook([checks, conflicted]), { onReject: "abstain" });
    const [only, ...rest] = await sim.predict(HAND_STATE, click, ctx);
    expect(rest).toEqual([]);
    expect(only?.step.state).toEqual(HAND_STATE);
    expect(only?.step.trace.unknown).toBe(true);
    expect(only?.step.trace.fired).toEqual([]);
    const verdicts = Object.fromEntries(only?.step.trace.candidates.map((c) => [c.rule, c.verdict]) ?? []);
    expect(verdicts).toEqual({ check: "contradicted", conflicted: "contradicted" });
    expect(only?.step.trace.rejected.map((r) => r.stage)).toEqual(["applicability", "applicability"]);
    expect(only?.step.trace.rejected[0]?.reason).toContain("box.checked eq true");
  });

  it("a rule below the confidence threshold is contradicted; above it the rule fires", async () => {
    const toggle = rule({
      id: "toggle",
      action: { type: "click", elementId: "box" },
      conditions: [{ path: "box.checked", op: "eq", value: false }],
      outcomes: [{ effects: [{ op: "set", path: "box.checked", value: true }], count: 10, probability: 1 }],
      confidence: 0.5,
    });
    const low = await createSimulator(handBook([toggle]), { onReject: "abstain" }).step(
      HAND_STATE,
      click,
      ctx,
      0,
    );
    expect(low.trace.candidates[0]?.verdict).toBe("contradicted");
    expect(low.state["box.checked"]).toBe(false);
    const ok = await createSimulator(handBook([toggle]), { confidenceThreshold: 0.4 }).step(
      HAND_STATE,
      click,
      ctx,
      0,
    );
    expect(ok.trace.candidates[0]?.verdict).toBe("supporting");
    expect(ok.trace.fired).toEqual(["toggle"]);
    expect(ok.state["box.checked"]).toBe(true);
  });

  it("a missing state field stays unknown: a condition on it is uncertain, not contradicted", async () => {
    const onMissing = rule({
      id: "needs-panel",
      action: { type: "click", elementId: "box" },
      conditions: [{ path: "panel.open", op: "eq", value: false }],
      outcomes: [{ effects: [{ op: "set", path: "box.checked", value: true }], count: 10, probability: 1 }],
    });
    const step = await createSimulator(handBook([onMissing]), { onReject: "abstain" }).step(
      HAND_STATE,
      click,
      ctx,
      0,
    );
    expect(step.trace.candidates).toEqual([
      {
        rule: "needs-panel",
        verdict: "uncertain",
        reason: expect.stringContaining("panel.open eq false reads unknown state"),
      },
    ]);
    expect(step.trace.unknown).toBe(true);
    expect(step.state).toEqual(HAND_STATE);
    expect("panel.open" in step.state).toBe(false);
  });

  it("tentative rules and tasks outside the scope are uncertain", async () => {
    const tentative = rule({
      id: "tentative",
      action: { type: "click", elementId: "box" },
      status: "tentative",
      support: 2,
    });
    const scoped = rule({
      id: "scoped",
      action: { type: "click", elementId: "box" },
      scope: { tasks: ["other"] },
    });
    const step = await createSimulator(handBook([tentative, scoped])).step(HAND_STATE, click, ctx, 0);
    expect(step.trace.candidates.map((c) => [c.rule, c.verdict])).toEqual([
      ["scoped", "uncertain"],
      ["tentative", "uncertain"],
    ]);
  });
});

describe("validation gate", () => {
  const cases = [
    {
      name: "out of range",
      effect: { op: "set" as const, path: "count", value: 9 },
      reason: "outside the invariant range [0, 3]",
    },
    {
      name: "constant",
      effect: { op: "set" as const, path: "title", value: "U" },
      reason: "title is constant within an episode",
    },
    {
      name: "value set",
      effect: { op: "set" as const, path: "mode", value: "z" },
      reason: 'mode would be "z", not one of the 2 values',
    },
    {
      name: "schema type",
      effect: { op: "set" as const, path: "box.checked", value: "yes" },
      reason: "the schema says boolean",
    },
    {
      name: "unknown path",
      effect: { op: "set" as const, path: "ghost", value: 1 },
      reason: "ghost is not in the state schema",
    },
  ];
  for (const c of cases) {
    it(`an effect that breaks the ${c.name} invariant is rejected with the reason recorded`, async () => {
      const bad = rule({
        id: "bad",
        action: { type: "click", elementId: "box" },
        conditions: [{ path: "count", op: "exists" }],
        outcomes: [{ effects: [c.effect], count: 10, probability: 1 }],
      });
      const input = structuredClone(HAND_STATE);
      const step = await createSimulator(handBook([bad]), { onReject: "abstain" }).step(input, click, ctx, 0);
      expect(step.trace.rejected).toEqual([
        { stage: "validation", basis: "bad", reason: expect.stringContaining(c.reason) },
      ]);
      expect(step.trace.unknown).toBe(true);
      expect(step.state).toEqual(HAND_STATE);
      expect(step.state).not.toBe(input);
      expect(input).toEqual(HAND_STATE);
    });
  }

  it("a rejection never changes committed state; retry moves to the next rule, which commits", async () => {
    const bad = rule({
      id: "a-bad",
      action: { type: "click", elementId: "box" },
      support: 20,
      conditions: [{ path: "count", op: "exists" }],
      outcomes: [{ effects: [{ op: "increment", path: "count", value: 5 }], count: 20, probability: 1 }],
    });
    const good = rule({
      id: "b-good",
      action: { type: "click", elementId: "box" },
      conditions: [{ path: "count", op: "exists" }],
      outcomes: [{ effects: [{ op: "increment", path: "count", value: 1 }], count: 10, probability: 1 }],
    });
    const book = handBook([bad, good]);
    const abstaining = createWorkspace(
      book,
      { taskId: "t", state: HAND_STATE },
      createSimulator(book, { onReject: "abstain" }),
    );
    const before = abstaining.snapshot();
    const step = await abstaining.step(click, 0.5);
    expect(step.trace.unknown).toBe(true);
    expect(abstaining.snapshot()).toEqual({ ...before, steps: 1 });
    expect(abstaining.memory()).toEqual([]);

    const retrying = createWorkspace(
      book,
      { taskId: "t", state: HAND_STATE },
      createSimulator(book, { onReject: "retry" }),
    );
    const next = await retrying.step(click, 0.5);
    expect(next.trace.rejected).toEqual([
      { stage: "validation", basis: "a-bad", reason: expect.stringContaining("outside the invariant range") },
    ]);
    expect(next.trace.fired).toEqual(["b-good"]);
    expect(retrying.state().count).toBe(2);
    expect(retrying.memory()).toHaveLength(1);
  });
});

describe("lifted rules", () => {
  const lifted = rule({
    id: "click:{elementId}",
    action: { type: "click" },
    params: ["elementId"],
    support: 40,
    conditions: [{ path: "el.{elementId}.checked", op: "eq", value: false }],
    outcomes: [
      { effects: [{ op: "set", path: "el.{elementId}.checked", value: true }], count: 40, probability: 1 },
    ],
  });
  const exact = rule({
    id: "click:e1",
    action: { type: "click", elementId: "e1" },
    conditions: [{ path: "el.e1.checked", op: "exists" }],
    outcomes: [{ effects: [{ op: "set", path: "count", value: 2 }], count: 10, probability: 1 }],
  });
  const book = handBook([lifted, exact], {
    schemas: {
      actions: [],
      fields: [
        { path: "el.e1.checked", type: "boolean", mutable: true },
        { path: "count", type: "number", mutable: true },
      ],
    },
    invariants: { constantWithinEpisode: [], ranges: [], values: [] },
  });
  const state = { "el.e1.checked": false, "el.e9.checked": false, count: 1 };

  it("the exact-argument rule is preferred over the lifted one, whatever their support", async () => {
    const step = await createSimulator(book).step(state, { type: "click", elementId: "e1" }, ctx, 0);
    expect(step.trace.candidates.map((c) => c.rule)).toEqual(["click:e1", "click:{elementId}"]);
    expect(step.trace.fired).toEqual(["click:e1"]);
    expect(step.state.count).toBe(2);
  });

  it("a lifted rule simulates an element no build trace showed (its field matched by its siblings)", async () => {
    const step = await createSimulator(book).step(state, { type: "click", elementId: "e9" }, ctx, 0);
    expect(step.trace.fired).toEqual(["click:{elementId}"]);
    expect(step.state).toEqual({ ...state, "el.e9.checked": true });
    const missing = await createSimulator(book, { onReject: "abstain" }).step(
      state,
      { type: "click", elementId: "e7" },
      ctx,
      0,
    );
    expect(missing.trace.candidates[0]).toMatchObject({ rule: "click:{elementId}", verdict: "uncertain" });
    expect(missing.trace.unknown).toBe(true);
  });
});
