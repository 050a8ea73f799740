import { describe, expect, it } from "vitest";
import { balanceWeights } from "../../src/search/balance.ts";

describe("balanceWeights when every weighted task is clipped", () => {
  it("gives a fully solved task weight 0, never NaN", () => {
    // The one task with SR < 1 has too few steps to carry the mean even at w_max: scale is ∞.
    const w = balanceWeights(
      [
        { taskId: "solved", leaves: 4, successes: 4, uniqueSteps: 30 },
        { taskId: "hard", leaves: 4, successes: 1, uniqueSteps: 2 },
      ],
      { beta: 0.5, wMax: 2 },
    );
    expect(w.map((x) => x.weight)).toEqual([0, 2]);
    expect(w.map((x) => x.mass)).toEqual([0, 4]);
    expect(w.every((x) => Number.isFinite(x.weight))).toBe(true);
  });
});
