import { describe, expect, it } from "vitest";
import { balanceWeights } from "../../src/search/balance.ts";

describe("global balancing", () => {
  it("gives each task a pre-clip mass of (1 − SR)^β", () => {
    const w = balanceWeights(
      [
        { taskId: "easy", leaves: 10, successes: 9, uniqueSteps: 12 },
        { taskId: "hard", leaves: 10, successes: 1, uniqueSteps: 4 },
      ],
      { beta: 0.5, wMax: 100 },
    );
    expect(w[0]?.rawMass).toBeCloseTo(Math.sqrt(0.1));
    expect(w[1]?.rawMass).toBeCloseTo(Math.sqrt(0.9));
    expect(w[0]?.rawWeight).toBeCloseTo(Math.sqrt(0.1) / 12);
    // Hand-computed: raw 0.026352 and 0.237171; mean over 16 examples = (0.316228 + 0.948683)/16
    // = 0.0790569; weights 0.333333 and 3.0 (mean 1: (12·1/3 + 4·3)/16 = 1).
    expect(w[0]?.weight).toBeCloseTo(1 / 3, 5);
    expect(w[1]?.weight).toBeCloseTo(3, 5);
    const total = (w[0]?.mass ?? 0) + (w[1]?.mass ?? 0);
    expect(total).toBeCloseTo(16);
    // Without clipping the final masses keep the pre-clip ratio.
    expect((w[1]?.mass ?? 0) / (w[0]?.mass ?? 1)).toBeCloseTo(3);
  });

  it("clips at w_max and renormalises to mean 1 with no weight above w_max", () => {
    const w = balanceWeights(
      [
        { taskId: "easy", leaves: 10, successes: 9, uniqueSteps: 12 },
        { taskId: "hard", leaves: 10, successes: 1, uniqueSteps: 4 },
      ],
      { beta: 0.5, wMax: 2 },
    );
    // Hard is clipped to 2: 4·2 = 8 of the 16 units of mass; easy takes the other 8 → 8/12.
    expect(w[1]?.weight).toBeCloseTo(2);
    expect(w[1]?.clipped).toBe(true);
    expect(w[0]?.weight).toBeCloseTo(8 / 12);
    expect(w[0]?.clipped).toBe(false);
    expect(12 * (w[0]?.weight ?? 0) + 4 * (w[1]?.weight ?? 0)).toBeCloseTo(16);
  });

  it("a task with no success contributes nothing; SR = 1 gives weight 0", () => {
    const w = balanceWeights(
      [
        { taskId: "none", leaves: 8, successes: 0, uniqueSteps: 0 },
        { taskId: "some", leaves: 4, successes: 2, uniqueSteps: 5 },
        { taskId: "all", leaves: 3, successes: 3, uniqueSteps: 2 },
      ],
      { beta: 0.5, wMax: 2 },
    );
    expect(w[0]).toMatchObject({ weight: 0, mass: 0, rawMass: 0 });
    expect(w[2]).toMatchObject({ weight: 0, mass: 0 });
    // "some" alone carries the mean: 7 examples, 5 of them weighted → 7/5 = 1.4 (below w_max).
    expect(w[1]?.weight).toBeCloseTo(1.4);
  });

  it("β = 0 weights every task's examples by 1/T only", () => {
    const w = balanceWeights(
      [
        { taskId: "a", leaves: 2, successes: 1, uniqueSteps: 2 },
        { taskId: "b", leaves: 2, successes: 2 - 1, uniqueSteps: 6 },
      ],
      { beta: 0, wMax: 10 },
    );
    expect((w[0]?.mass ?? 0) / (w[1]?.mass ?? 1)).toBeCloseTo(1);
  });

  it("rejects w_max below 1", () => {
    expect(() => balanceWeights([], { beta: 0.5, wMax: 0.5 })).toThrow(/w_max/);
  });
});
