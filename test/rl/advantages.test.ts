import { describe, expect, it } from "vitest";
import {
  discountedStepRewards,
  groupAdvantages,
  parseAdvantageOptions,
  populationStd,
  stepAdvantages,
} from "../../src/rl/advantages.ts";

describe("GRPO advantages", () => {
  it("group scaling: (r − mean)/(std + ε) within each group", () => {
    // [1, 0]: mean 0.5, std 0.5 → ±0.5/(0.5 + ε); [2, 2, 2]: ties → 0.
    const [a, b] = groupAdvantages(
      [
        [1, 0],
        [2, 2, 2],
      ],
      parseAdvantageOptions({}),
    );
    expect(a?.[0]).toBeCloseTo(0.5 / (0.5 + 1e-6), 12);
    expect(a?.[1]).toBeCloseTo(-0.5 / (0.5 + 1e-6), 12);
    expect(b).toEqual([0, 0, 0]);
  });

  it("batch scaling divides by the std of the whole batch; none does not divide", () => {
    const groups = [
      [1, 0],
      [3, 3],
    ];
    const std = populationStd([1, 0, 3, 3]); // mean 1.75: sqrt((0.5625 + 3.0625 + 1.5625·2)/4)
    expect(std).toBeCloseTo(Math.sqrt(6.75 / 4), 12);
    const [a, b] = groupAdvantages(groups, parseAdvantageOptions({ scaling: "batch", epsilon: 1e-3 }));
    expect(a?.[0]).toBeCloseTo(0.5 / (std + 1e-3), 12);
    expect(b).toEqual([0, 0]);
    expect(groupAdvantages(groups, parseAdvantageOptions({ scaling: "none" }))).toEqual([
      [0.5, -0.5],
      [0, 0],
    ]);
  });

  it("a one-member group and an empty batch give 0, never NaN", () => {
    expect(groupAdvantages([[0.7]], parseAdvantageOptions({}))).toEqual([[0]]);
    expect(groupAdvantages([], parseAdvantageOptions({}))).toEqual([]);
  });

  it("per-step rewards discount the terminal reward backwards; the default discount is 1.0", () => {
    expect(parseAdvantageOptions({}).discount).toBe(1);
    expect(discountedStepRewards(2, 3, 0.5)).toEqual([0.5, 1, 2]);
    expect(stepAdvantages(-1.5, 3, parseAdvantageOptions({}))).toEqual([-1.5, -1.5, -1.5]);
    expect(discountedStepRewards(1, 0, 0.9)).toEqual([]);
  });

  it("rejects an unknown scaling with a user error", () => {
    expect(() => parseAdvantageOptions({ scaling: "token" })).toThrow(/advantages\.scaling/);
  });
});
