import { describe, expect, it } from "vitest";
import type { Action, StateRecord } from "../../../src/core/index.ts";
import { createSimulator } from "../../../src/worldmodel/index.ts";
import { HAND_STATE, handBook, rule } from "./helpers.ts";

const click: Action = { type: "click", elementId: "box" };
const ctx = { taskId: "t" };

describe("the observation contract in the validation gate", () => {
  const counts = rule({
    id: "count",
    action: { type: "click", elementId: "box" },
    outcomes: [{ effects: [{ op: "increment", path: "count", value: 1 }], count: 10, probability: 1 }],
  });
  // The family "cannot show" a count of 2 (as the chess viewer cannot show an impossible position).
  const observable = (state: StateRecord) =>
    state.count === 2 ? "a count of 2 has no rendering" : undefined;

  it("rejects a proposal whose state the family cannot render, with the reason, and commits nothing", async () => {
    const sim = createSimulator(handBook([counts]), { onReject: "abstain" }, { observable });
    const input = { ...HAND_STATE };
    const step = await sim.step(input, click, ctx, 0);
    expect(input).toEqual(HAND_STATE);
    expect(step.state).toEqual(HAND_STATE);
    expect(step.trace.unknown).toBe(true);
    expect(step.trace.rejected).toContainEqual({
      stage: "validation",
      basis: "count",
      reason: "the observation contract fails: a count of 2 has no rendering",
    });
  });

  it("lets a renderable proposal through unchanged", async () => {
    const sim = createSimulator(handBook([counts]), { onReject: "abstain" }, { observable });
    const step = await sim.step({ ...HAND_STATE, count: 2 }, click, ctx, 0);
    expect(step.state.count).toBe(3);
    expect(step.trace.fired).toEqual(["count"]);
  });
});
