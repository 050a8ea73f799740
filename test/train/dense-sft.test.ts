import { describe, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { Parameters } from "../../src/policies/trainable/index.ts";
import { DenseSft } from "../../src/train/dense-sft.ts";
import {
  type SftExample,
  SftOptionsSchema,
  sftBatch,
  trainSft,
  type WeightedStep,
  weightedCrossEntropy,
} from "../../src/train/index.ts";
import { frozenLakeWalk } from "./frozenlake-walk.ts";

/** The named loop `trainSft` ran before the dense batch: `weightedCrossEntropy` and `descend` per epoch. */
function namedLoop(
  steps: WeightedStep[],
  epochs: number,
  rate: number,
  l2: number,
  init: Record<string, number> = {},
) {
  const params = Parameters.from(init);
  const losses: number[] = [];
  for (let e = 0; e < epochs; e++) {
    const { loss, grad } = weightedCrossEntropy(params, steps, { l2 });
    losses.push(loss);
    grad.descend(params, rate);
  }
  losses.push(weightedCrossEntropy(params, steps, { l2 }).loss);
  return { params, losses };
}

/** The weights in slot order, zeros kept: equal strings mean equal bits and the same slots. */
const slots = (p: Parameters) => JSON.stringify([...p.index].map(([name, i]) => [name, p.values[i]]));

/** Seeded random steps: shared and duplicated names, zero values and weights, 1–4 candidates. */
function randomSteps(seed: string, n: number): WeightedStep[] {
  const random = createRandom(seed);
  const names = ["b", "a", "c:x", "c:y", "z", "d"];
  return Array.from({ length: n }, () => {
    const features = Array.from({ length: 1 + Math.floor(random.next() * 4) }, () =>
      Array.from(
        { length: Math.floor(random.next() * 4) },
        () =>
          [
            names[Math.floor(random.next() * names.length)] as string,
            random.next() < 0.2 ? 0 : random.next() * 4 - 2,
          ] as const,
      ),
    );
    const weight = random.next() < 0.15 ? 0 : random.next() * 3;
    return { features, chosen: Math.floor(random.next() * features.length), weight };
  });
}

describe("the dense SFT batch is the named loop, bit for bit", () => {
  it("on seeded random batches, with L2 and initial weights (one not in any feature)", () => {
    for (const seed of ["1", "2", "3", "4"])
      for (const l2 of [0, 0.05]) {
        const steps = randomSteps(seed, 40);
        const init = { zz: 0.5, a: -0.25 };
        const named = namedLoop(steps, 30, 0.7, l2, init);
        const dense = denseRun(steps, 30, 0.7, l2, init);
        expect(slots(dense.params)).toBe(slots(named.params));
        expect(dense.losses).toEqual(named.losses);
      }
  });

  it.each(["linear", "tabular"] as const)("trainSft on real FrozenLake contexts (%s)", async (kind) => {
    const contexts = await frozenLakeWalk([
      "right",
      "right",
      "down",
      "down",
      "left",
      "down",
      "right",
      "right",
    ]);
    const examples: SftExample[] = contexts.map((context, i) => ({
      taskId: "4x4",
      context,
      target: { type: "move", direction: i % 3 === 0 ? "down" : "right" },
      weight: 1 + (i % 2),
    }));
    const options = SftOptionsSchema.parse({ kind, epochs: 25, learningRate: 0.8, l2: 0.01 });
    const init = { "bias:never-seen": 0.3 };
    const result = trainSft(examples, options, { family: "frozenlake", seed: "0", init });
    const named = namedLoop(sftBatch(kind, examples).steps, 25, 0.8, 0.01, init);
    expect(JSON.stringify(result.checkpoint.weights)).toBe(JSON.stringify(named.params.toRecord()));
    expect(result.curve.map((p) => p.loss)).toEqual(named.losses);
  });
});

function denseRun(
  steps: WeightedStep[],
  epochs: number,
  rate: number,
  l2: number,
  init: Record<string, number>,
) {
  const dense = new DenseSft(Parameters.from(init), steps);
  const losses: number[] = [];
  for (let e = 0; e < epochs; e++) {
    losses.push(dense.loss(l2));
    dense.descend(rate);
  }
  losses.push(dense.loss(l2));
  dense.clearGradient();
  return { params: dense.parameters(), losses };
}
