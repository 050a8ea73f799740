import { describe, expect, it } from "vitest";
import { type Action, createRandom, type Policy } from "../../../src/core/index.ts";
import { createMixedPolicy } from "../../../src/experiments/worldmodel/mixed-policy.ts";

const up: Action = { type: "move", direction: "up" };
const primary: Policy = {
  name: "always-up",
  async propose(_ctx, { n }) {
    return { candidates: Array.from({ length: n }, () => ({ action: up, raw: "up" })) };
  },
};
const legal: Action[] = [up, { type: "move", direction: "down" }, { type: "move", direction: "left" }];
const context = {
  task: { id: "t", family: "frozenlake" } as never,
  observation: { text: "", legalActions: legal },
  history: [],
  stepIndex: 0,
};

async function actions(policy: Policy, steps: number): Promise<Action[]> {
  const random = createRandom("mixed-test");
  const out: Action[] = [];
  for (let i = 0; i < steps; i++) {
    const p = await policy.propose(context, { n: 1, temperature: 1, random });
    out.push(p.candidates[0]?.action as Action);
  }
  return out;
}

describe("createMixedPolicy", () => {
  it("rate 0 is the primary policy, rate 1 the random one", async () => {
    expect(createMixedPolicy(primary, 0)).toBe(primary);
    expect(createMixedPolicy(primary, 1).name).toBe("random");
  });

  it("mixes random legal actions into the primary's at about the rate, reproducibly", async () => {
    const mixed = createMixedPolicy(primary, 0.5);
    const a = await actions(mixed, 400);
    const notUp = a.filter((x) => x !== up && JSON.stringify(x) !== JSON.stringify(up)).length;
    // Random steps pick one of 3 legal moves: 2/3 of them are not "up"; expected 400 × 0.5 × 2/3 ≈ 133.
    expect(notUp).toBeGreaterThan(90);
    expect(notUp).toBeLessThan(180);
    expect(JSON.stringify(await actions(mixed, 400))).toBe(JSON.stringify(a));
  });
});
