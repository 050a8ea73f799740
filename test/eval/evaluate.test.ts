import { describe, expect, it } from "vitest";
import { type Candidate, createRuntime } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import {
  discoveryAtMatchedSteps,
  evaluatePolicy,
  fingerprintEntropyBits,
  passReport,
} from "../../src/eval/index.ts";
import { createOraclePolicy } from "../../src/policies/oracle-policy.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { createMemoryStore } from "../../src/store/index.ts";

const fp = { gridPx: 50, typeTextChars: 30 };
const c = (direction: "left" | "right" | "up" | "down"): Candidate => ({
  action: { type: "move", direction },
  raw: direction,
});

describe("action entropy", () => {
  it("is 0 for agreement, 1 bit for an even split, 2 bits for four even buckets", () => {
    expect(fingerprintEntropyBits([c("left"), c("left")], fp)).toBe(0);
    expect(fingerprintEntropyBits([c("left"), c("right")], fp)).toBeCloseTo(1);
    expect(fingerprintEntropyBits([c("left"), c("right"), c("up"), c("down")], fp)).toBeCloseTo(2);
    // Hand-computed: p = (3/4, 1/4) → 0.811278 bits.
    expect(fingerprintEntropyBits([c("left"), c("left"), c("left"), c("up")], fp)).toBeCloseTo(0.811278, 5);
    const invalid: Candidate = { action: null, raw: "?", parseError: { code: "x", message: "x" } };
    expect(fingerprintEntropyBits([invalid, invalid], fp)).toBe(0);
  });
});

describe("pass report", () => {
  it("averages unbiased pass@k over tasks per split and tier", () => {
    const rows = passReport(
      [
        { taskId: "a", split: "train", tier: "short", n: 4, c: 2, infraFailed: 0, meanSteps: 2 },
        { taskId: "b", split: "train", tier: "long", n: 4, c: 0, infraFailed: 1, meanSteps: 9 },
        { taskId: "h", split: "heldout", tier: "short", n: 4, c: 4, infraFailed: 0, meanSteps: 2 },
      ],
      [1, 2],
    );
    const train = rows.find((r) => r.group === "train")!;
    expect(train.passAt[1]).toBeCloseTo((0.5 + 0) / 2);
    // Task a: pass@2 = 1 − C(2,2)/C(4,2) = 5/6.
    expect(train.passAt[2]).toBeCloseTo(5 / 6 / 2);
    // pass^2 for a: C(2,2)/C(4,2) = 1/6.
    expect(train.passHat[2]).toBeCloseTo(1 / 6 / 2);
    expect(rows.find((r) => r.group === "heldout")?.passAt[1]).toBe(1);
    expect(rows.map((r) => r.group)).toEqual(["train", "heldout", "all", "tier:long", "tier:short"]);
  });

  it("compares search discovery with the base policy at matched environment steps", () => {
    const rows = discoveryAtMatchedSteps(
      [
        { taskId: "a", tier: "short", successes: 3, envSteps: 8 },
        { taskId: "b", tier: "long", successes: 1, envSteps: 90 },
      ],
      [
        { taskId: "a", split: "train", tier: "short", n: 8, c: 2, infraFailed: 0, meanSteps: 2 },
        { taskId: "b", split: "train", tier: "long", n: 8, c: 0, infraFailed: 0, meanSteps: 10 },
      ],
    );
    const short = rows.find((r) => r.tier === "short")!;
    // m = 8 / 2 = 4 rollouts: pass@4 with n = 8, c = 2 is 1 − C(6,4)/C(8,4) = 1 − 15/70.
    expect(short.baseAtMatchedSteps).toBeCloseTo(1 - 15 / 70);
    expect(short.searchDiscovery).toBe(1);
    const long = rows.find((r) => r.tier === "long")!;
    // m = 9 > n = 8 → extrapolated 1 − (1 − 0)^9 = 0.
    expect(long.baseAtMatchedSteps).toBe(0);
    expect(long.extrapolated).toBe(1);
    expect(rows.find((r) => r.tier === "all")?.tasks).toBe(2);
  });
});

describe("evaluatePolicy", () => {
  it("runs n rollouts per task, records them and reports pass@k and entropy", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const store = createMemoryStore();
    const runtime = createRuntime();
    store.createRun({ id: "eval_1", kind: "eval", seed: "1", config: {}, codeVersion: "t", createdAtMs: 0 });
    const tasks = [env.suite.get("4x4"), env.suite.get("random-5-70")];
    const oracle = await evaluatePolicy(
      { env, policy: createOraclePolicy(), runtime, store },
      {
        runId: "eval_1",
        tasks,
        rollouts: 3,
        temperature: 1,
        seed: "1",
        ks: [1, 2],
        entropy: { states: 5, samples: 8, temperature: 1, ...fp },
      },
    );
    expect(oracle.perTask.map((t) => [t.taskId, t.n, t.c])).toEqual([
      ["4x4", 3, 3],
      ["random-5-70", 3, 3],
    ]);
    expect(oracle.pass.find((p) => p.group === "all")?.passAt[1]).toBe(1);
    expect(oracle.entropy?.meanBits).toBe(0);
    expect(store.listTrajectories("eval_1")).toHaveLength(6);

    store.createRun({ id: "eval_2", kind: "eval", seed: "1", config: {}, codeVersion: "t", createdAtMs: 0 });
    const random = await evaluatePolicy(
      { env, policy: createRandomPolicy(), runtime, store },
      {
        runId: "eval_2",
        tasks,
        rollouts: 3,
        temperature: 1,
        seed: "1",
        ks: [1],
        entropy: { states: 5, samples: 16, temperature: 1, ...fp },
      },
    );
    expect(random.entropy?.meanBits).toBeGreaterThan(1);
    expect(random.entropy?.states).toBe(5);
  });
});
