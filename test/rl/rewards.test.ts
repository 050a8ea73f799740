import { describe, expect, it } from "vitest";
import {
  budgetDeviation,
  budgetReward,
  groupRewards,
  parseRewardOptions,
  type RewardInput,
} from "../../src/rl/rewards/index.ts";

const m = (id: string, success: boolean, length: number, wmCalls = 0): RewardInput => ({
  id,
  success,
  length,
  wmCalls,
});
const rewardsOf = (r: ReturnType<typeof groupRewards>) => r.members.map((x) => x.reward);

describe("composite reward R = α·R_success + β·R_L + γ·R_WM (hand-computed groups)", () => {
  it("defaults are α 1.0, β 0.5, γ 0.1 (γ never defaults to 0) and budget ε 1e-9", () => {
    const o = parseRewardOptions({});
    expect([o.alpha, o.beta, o.gamma, o.budgetEpsilon]).toEqual([1, 0.5, 0.1, 1e-9]);
    expect(parseRewardOptions(undefined).gamma).toBe(0.1);
  });

  it("rejects bad options with a user error naming the field", () => {
    expect(() => parseRewardOptions({ gamma: -1 })).toThrow(/rewards\.gamma/);
    expect(() => parseRewardOptions({ delta: 1 })).toThrow(/invalid options: rewards: Unrecognized key/);
  });

  it("all fail: L_budget = L_max; the zero WM budget is guarded (R_WM −0.1)", () => {
    // p = 0, L_budget = 15: λ = 0, 0, −1/3, −2/3 → R_L −0.1, −0.1, −0.4, −0.7; N budget 0 → λ 0 → −0.1.
    const r = groupRewards(
      [m("a", false, 15), m("b", false, 15), m("c", false, 10), m("d", false, 5)],
      parseRewardOptions({ maxLength: 15 }),
    );
    expect(r.stats).toMatchObject({ c: 0, n: 4, p: 0, length: { reference: 15, budget: 15 } });
    expect(r.stats.wm.budget).toBe(0);
    const rl = r.members.map((x) => x.parts.length);
    for (const [i, v] of [-0.1, -0.1, -0.4, -0.7].entries()) expect(rl[i]).toBeCloseTo(v, 12);
    expect(r.members.every((x) => x.parts.wm === -0.1)).toBe(true);
    for (const [i, v] of [-0.06, -0.06, -0.21, -0.36].entries()) expect(rewardsOf(r)[i]).toBeCloseTo(v, 12);
  });

  it("all succeed with 0 WM calls: L_ref is the mean length; WM budget 0 scores 0.5, never NaN", () => {
    // L_budget = 5: λ = −0.2, 0.2 → R_L 0.6, 0.4; R_WM 0.5 → R = 1 + 0.3 + 0.05, 1 + 0.2 + 0.05.
    const r = groupRewards([m("a", true, 4), m("b", true, 6)], parseRewardOptions({ maxLength: 10 }));
    expect(r.stats.length.budget).toBe(5);
    expect(r.members.map((x) => x.parts.wm)).toEqual([0.5, 0.5]);
    expect(rewardsOf(r)[0]).toBeCloseTo(1.35, 12);
    expect(rewardsOf(r)[1]).toBeCloseTo(1.25, 12);
  });

  it("one success of four: both budgets mix the reference and the maximum", () => {
    // p = 0.25. L: ref 4, budget 0.25·4 + 0.75·10 = 8.5. N: ref 2, max 4, budget 3.5.
    const r = groupRewards(
      [m("a", true, 4, 2), m("b", false, 10, 0), m("c", false, 10, 4), m("d", false, 6, 1)],
      parseRewardOptions({ maxLength: 10 }),
    );
    expect(r.stats.p).toBe(0.25);
    expect(r.stats.length.budget).toBe(8.5);
    expect(r.stats.wm).toEqual({ reference: 2, maximum: 4, budget: 3.5 });
    const [a, b, c, d] = r.members;
    expect(a?.parts.length).toBeCloseTo(0.5 + 0.5 * (4.5 / 8.5), 12);
    expect(a?.parts.wm).toBeCloseTo(0.5 + 0.5 * (1.5 / 3.5), 12);
    expect(b?.parts.length).toBeCloseTo(-0.1, 12); // 0.9·(1.5/8.5) − 0.1 > −0.1 → capped
    expect(b?.parts.wm).toBeCloseTo(-1.0, 12); // μ = −1
    expect(c?.parts.wm).toBeCloseTo(-0.1, 12);
    expect(d?.parts.length).toBeCloseTo(0.9 * (-2.5 / 8.5) - 0.1, 12);
    expect(d?.parts.wm).toBeCloseTo(0.9 * (-2.5 / 3.5) - 0.1, 12);
    for (const [i, v] of [1.4537815, -0.15, -0.06, -0.2566387].entries())
      expect(rewardsOf(r)[i]).toBeCloseTo(v, 6);
  });

  it("budget 0 and budget 1e-9 are guarded: finite rewards, not the unguarded −1.0 or ±∞", () => {
    expect(budgetDeviation(0, 0, 1e-9)).toBe(0);
    expect(budgetDeviation(3, 0, 1e-9)).toBe(3);
    expect(budgetDeviation(0, 1e-9, 1e-9)).toBe(0);
    expect(budgetDeviation(2, 1e-9, 1e-9)).toBeCloseTo(2, 6);
    expect(budgetDeviation(0, 1e-12, 1e-9)).toBe(0);
    expect(budgetDeviation(1, 2, 1e-9)).toBe(-0.5); // an ordinary budget divides
    // N_max 1e-9, all fail with 0 calls: unguarded μ would be −1 (R_WM −1.0); guarded it is −0.1.
    const near = groupRewards([m("a", false, 3), m("b", false, 3)], parseRewardOptions({ maxWmCalls: 1e-9 }));
    expect(near.stats.wm.budget).toBe(1e-9);
    expect(near.members.map((x) => x.parts.wm)).toEqual([-0.1, -0.1]);
    // N_max 0 with a member over it: λ = its excess, R_WM −0.1 (finite).
    const zero = groupRewards(
      [m("a", false, 3, 2), m("b", false, 3, 0)],
      parseRewardOptions({ maxWmCalls: 0 }),
    );
    expect(zero.members.map((x) => x.parts.wmLambda)).toEqual([2, 0]);
    for (const x of [...near.members, ...zero.members]) expect(Number.isFinite(x.reward)).toBe(true);
  });

  it("ties get equal rewards", () => {
    const r = groupRewards(
      [m("a", true, 5, 1), m("b", true, 5, 1), m("c", false, 7, 1), m("d", false, 7, 1)],
      parseRewardOptions({ maxLength: 15 }),
    );
    const [a, b, c, d] = rewardsOf(r);
    expect(a).toBe(b);
    expect(c).toBe(d);
    expect(a).toBeGreaterThan(c as number);
  });

  it("a weight of 0 keeps its part as a logged metric and drops it from R", () => {
    const members = [m("a", true, 4, 2), m("b", false, 10, 0)];
    const full = groupRewards(members, parseRewardOptions({ maxLength: 10 }));
    const noWm = groupRewards(members, parseRewardOptions({ maxLength: 10, gamma: 0 }));
    expect(noWm.members.map((x) => x.parts)).toEqual(full.members.map((x) => x.parts));
    for (const [i, x] of noWm.members.entries())
      expect(x.reward).toBeCloseTo((full.members[i]?.reward ?? 0) - 0.1 * x.parts.wm, 12);
  });

  it("success and failure shapes clip at 0.1 and −0.1", () => {
    expect(budgetReward(true, 10)).toBe(0.1);
    expect(budgetReward(true, -1)).toBe(1);
    expect(budgetReward(false, 1)).toBe(-0.1);
    expect(budgetReward(false, -1)).toBeCloseTo(-1, 12);
  });
});
