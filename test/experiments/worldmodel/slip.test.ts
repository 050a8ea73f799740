import { describe, expect, it } from "vitest";
import { resolveDynamics } from "../../../src/envs/frozenlake/index.ts";
import { recordFamilyTraces } from "../../../src/experiments/worldmodel/record.ts";
import { recoverSlip } from "../../../src/experiments/worldmodel/slip.ts";
import { buildWorldbook, splitTraces } from "../../../src/worldmodel/index.ts";

async function recovered(envOptions: Record<string, unknown>, name: string) {
  const rec = await recordFamilyTraces({
    name,
    family: "frozenlake",
    envOptions,
    tasks: ["4x4"],
    batches: [{ policy: "random", episodes: 400 }],
    seed: "slip",
  });
  const split = splitTraces(rec.steps, { seed: "slip" });
  const book = buildWorldbook(split.steps.build, {}, { tasks: rec.tasks, split: split.manifest });
  return recoverSlip(book, resolveDynamics(envOptions));
}

describe("recoverSlip (FrozenLake worldbooks from random-policy traces)", () => {
  it("recovers the symmetric slip (1/3 each) within ±0.03", async () => {
    const r = await recovered({ slippery: true }, "slip-sym");
    expect(r.truth).toEqual({ intended: 1 / 3, left: 1 / 3, right: 1 / 3 });
    expect(r.perDirection.map((d) => d.direction)).toEqual(["down", "left", "right", "up"]);
    expect(r.maxError).toBeLessThanOrEqual(0.03);
    const sum = r.pooled.intended + r.pooled.left + r.pooled.right;
    expect(sum).toBeCloseTo(1, 9);
  });

  it("recovers the (0, 2/3) setting within ±0.03, never a left slip", async () => {
    const r = await recovered({ slippery: true, slipRatio: [0, 1] }, "slip-skew");
    expect(r.truth.left).toBe(0);
    expect(r.truth.right).toBeCloseTo(2 / 3, 9);
    expect(r.maxError).toBeLessThanOrEqual(0.03);
    expect(r.perDirection.every((d) => d.left === 0)).toBe(true);
  });

  it("on still ice every move goes where intended", async () => {
    const r = await recovered({ slippery: false }, "slip-none");
    expect(r.pooled).toEqual({ intended: 1, left: 0, right: 0 });
    expect(r.maxError).toBe(0);
  });
});
