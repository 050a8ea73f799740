import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRandom, createRuntime } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import {
  addLogProbGradient,
  CheckpointSchema,
  Gradient,
  logitsOf,
  logProb,
  Parameters,
  readCheckpoint,
  scoreState,
  softmax,
  writeCheckpoint,
} from "../../src/policies/trainable/index.ts";
import {
  addGateLogProbGradient,
  gateLogProb,
  gateProbability,
  type WmOutcome,
  withWmFeatures,
} from "../../src/policies/trainable/wm-gate.ts";
import { countWmCalls } from "../../src/rl/wm-transcript.ts";
import { snapshotWorldModel, type WorldModel } from "../../src/rl/world-model.ts";
import {
  clippedPolicyLoss,
  GrpoOptionsSchema,
  type PolicyGradientStep,
  trainGrpo,
  trajectoryContexts,
} from "../../src/train/index.ts";
import { createWmGatedPolicy, gateTerm, wmGatedStep } from "../../src/train/wm-gated-policy.ts";
import { createBanditEnvironment } from "./bandit-env.ts";
import { checkGradient, checkLossGradient } from "./finite-difference.ts";
import { frozenLakeWalk } from "./frozenlake-walk.ts";

/** Real FrozenLake contexts (a short walk on 4x4), each history entry a WM call. */
const contexts = () =>
  frozenLakeWalk(["right", "down", "right"], { raw: () => "<call_wm>{}</call_wm>", throughEnd: true });

const OUTCOMES: WmOutcome[] = [
  { reward: 0, terminated: true, success: false, novel: true, unknown: false },
  { reward: 1, terminated: true, success: true, novel: true, unknown: false },
];

describe("the WM-consulting policy's log-probability", () => {
  it.each(["tabular", "linear"] as const)(
    "%s: gate + action log-prob gradients match finite differences",
    async (kind) => {
      const random = createRandom("wm-gate-grad", kind);
      const params = new Parameters();
      const steps = (await contexts()).flatMap((context, i) => {
        const state = scoreState(kind, context);
        for (const f of state.features) for (const [name] of f) params.set(name, random.next() * 2 - 1);
        const outcomes = new Map([
          [0, OUTCOMES[0] as WmOutcome],
          [1, OUTCOMES[1] as WmOutcome],
        ]);
        const input = { baseFeatures: state.features, stepIndex: context.stepIndex, callsSoFar: i };
        return (["consult", "skip"] as const).map((decision) => ({
          features: decision === "consult" ? withWmFeatures(state.features, outcomes) : state.features,
          chosen: (i + 1) % state.actions.length,
          input,
          decision,
        }));
      });
      for (const name of [
        "wm-gate:bias",
        "wm-gate:entropy",
        "wm-gate:margin",
        "wm-gate:step=0",
        "wm-gate:calls=1-4",
        "wm:fail",
        "wm:success",
        "wm:reward",
        "wm:novel",
        "wm:asked",
      ])
        params.set(name, random.next() * 2 - 1);
      const t = 0.8;
      const total = (p: Parameters) =>
        steps.reduce(
          (a, s) =>
            a + gateLogProb(p, s.input, s.decision, t) + logProb(logitsOf(p, s.features), s.chosen, t),
          0,
        );
      const grad = new Gradient();
      for (const s of steps) {
        addGateLogProbGradient(grad, params, s.input, s.decision, 1, t);
        addLogProbGradient(grad, s.features, softmax(logitsOf(params, s.features), t), s.chosen, 1, t);
      }
      const checked = checkGradient(params, grad, total);
      expect(checked).toBeGreaterThanOrEqual(kind === "tabular" ? 20 : 14);
      // The action weights reach the gate through entropy and margin: that path is non-zero.
      const gateOnly = new Gradient();
      for (const s of steps) addGateLogProbGradient(gateOnly, params, s.input, s.decision, 1, t);
      expect([...gateOnly.values.keys()].some((n) => !n.startsWith("wm-gate:"))).toBe(true);
    },
  );

  it("the clipped loss with gate terms matches finite differences", async () => {
    const random = createRandom("wm-gate-clip", 0);
    const params = new Parameters();
    const batch: PolicyGradientStep[] = (await contexts()).map((context, i) => {
      const state = scoreState("linear", context);
      for (const f of state.features) for (const [name] of f) params.set(name, random.next() * 2 - 1);
      params.set("wm-gate:entropy", 0.7);
      params.set("wm-gate:bias", -0.3);
      const step = {
        features: state.features,
        chosen: i % state.actions.length,
        input: { baseFeatures: state.features, stepIndex: i, callsSoFar: 0 },
        decision: i === 1 ? ("skip" as const) : ("consult" as const),
      };
      const gate = gateTerm(step, 1);
      const now = softmax(logitsOf(params, step.features))[step.chosen] ?? 0;
      return {
        features: step.features,
        chosen: step.chosen,
        advantage: i === 0 ? 1 : -0.5,
        oldProb: (now * Math.exp(gate.logProb(params))) / (i === 2 ? 1.5 : 1.05),
        reference: state.features.map(() => 1 / state.features.length),
        gate,
      };
    });
    const options = { clip: 0.2, kl: 0.1, temperature: 1 };
    const { grad } = clippedPolicyLoss(params, batch, options);
    checkLossGradient(params, (p) => clippedPolicyLoss(p, batch, options));
    expect(grad.get("wm-gate:entropy")).not.toBe(0);
  });
});

/** A world model that knows nothing: the same answer for every action. */
const blind: WorldModel = {
  name: "blind",
  async predict(_action, context) {
    return {
      observation: context.observation,
      reward: 0,
      terminated: false,
      truncated: false,
      success: false,
    };
  },
};

async function trainCoin(wm: "perfect" | "blind", iterations: number) {
  const env = createBanditEnvironment("coin");
  const options = GrpoOptionsSchema.parse({
    kind: "tabular",
    iterations,
    learningRate: 0.5,
    wm: { stepCap: 2, episodeCap: 2 },
    rollouts: { group: 8, tMax: 1 },
  });
  const checkpoint = await trainGrpo(
    {
      env,
      tasks: env.suite.list(),
      runtime: createRuntime(),
      worldModel: wm === "perfect" ? snapshotWorldModel(env) : blind,
    },
    options,
    { family: "bandit", seed: "5" },
  );
  await env.close();
  return checkpoint;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

describe("GRPO trains the gate and the action weights", () => {
  it("learns to consult where the world model tells the paying arm, not where it tells nothing", async () => {
    const useful = await trainCoin("perfect", 30);
    const useless = await trainCoin("blind", 30);
    const curve = (c: typeof useful) => c.training?.curve ?? [];
    const calls = (c: typeof useful) => curve(c).map((p) => p.wmCallsPerTrajectory ?? -1);
    const success = (c: typeof useful) => curve(c).map((p) => p.successRate ?? 0);
    // Both start at the gate's σ(0) = ½: about one consult (2 calls) in two trajectories.
    expect(mean(calls(useful).slice(0, 3))).toBeGreaterThan(0.5);
    expect(mean(calls(useful).slice(0, 3))).toBeLessThan(1.6);
    // Consulting pays on the coin bandit: the gate opens and success follows the calls.
    expect(mean(calls(useful).slice(-5))).toBeGreaterThan(1.8);
    expect(mean(success(useful).slice(-5))).toBeGreaterThan(0.9);
    expect((useful.weights["wm:success"] ?? 0) > 0).toBe(true);
    expect(useful.weights["wm-gate:bias"] ?? 0).toBeGreaterThan(0);
    // A blind world model carries no information: success stays near chance, the gate does not open.
    expect(mean(success(useless).slice(-10))).toBeLessThan(0.7);
    expect(mean(calls(useless).slice(-5))).toBeLessThan(1);
    expect(mean(calls(useless).slice(-5))).toBeLessThan(mean(calls(useful).slice(-5)) - 0.8);
    // The checkpoint says it consults; it round-trips through the file format, and one without `wm`
    // (every earlier checkpoint) still reads.
    expect(CheckpointSchema.parse(useful).wm).toEqual({ stepCap: 2, episodeCap: 2 });
    const dir = mkdtempSync(join(tmpdir(), "wm-ckpt-"));
    try {
      writeCheckpoint(join(dir, "wm.json"), useful);
      expect(readCheckpoint(join(dir, "wm.json"))).toEqual(CheckpointSchema.parse(useful));
      const { wm: _wm, ...plain } = useful;
      writeFileSync(join(dir, "old.json"), JSON.stringify(plain));
      expect(readCheckpoint(join(dir, "old.json")).wm).toBeUndefined();
      writeFileSync(join(dir, "bad.json"), JSON.stringify({ ...useful, wm: { stepCap: 0, episodeCap: 2 } }));
      expect(() => readCheckpoint(join(dir, "bad.json"))).toThrow(/checkpoint/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts calls from the transcripts, keeps the caps, and the curve equals the recount", async () => {
    const env = createFrozenLakeEnvironment({ slippery: true });
    const options = GrpoOptionsSchema.parse({
      kind: "tabular",
      iterations: 3,
      wm: { stepCap: 3, episodeCap: 7 },
      rollouts: { group: 6, tMax: 30 },
    });
    const recount: number[] = [];
    const task = env.suite.get("4x4");
    let stepsChecked = 0;
    const checkpoint = await trainGrpo(
      {
        env,
        tasks: [task],
        runtime: createRuntime(),
        worldModel: snapshotWorldModel(env),
        onRollouts: (_it, trajectories) => {
          let total = 0;
          for (const t of trajectories) {
            let n = 0;
            for (const s of t.steps) {
              const c = countWmCalls(s.raw);
              expect(c).toBeLessThanOrEqual(3);
              n += c;
            }
            expect(n).toBeLessThanOrEqual(7);
            total += n;
            // Every step rebuilds for the trainer: a consult has ≥ 1 call, a skip or closed gate none.
            for (const { context, action, raw } of trajectoryContexts(task, t)) {
              const step = wmGatedStep("tabular", context, action, raw);
              expect(step.decision === "consult").toBe(countWmCalls(raw) > 0);
              if (step.input.callsSoFar >= 7) expect(step.decision).toBe("closed");
              stepsChecked++;
            }
          }
          recount.push(total / trajectories.length);
        },
      },
      options,
      { family: "frozenlake", seed: "1" },
    );
    await env.close();
    const curve = checkpoint.training?.curve ?? [];
    expect(curve.map((p) => p.wmCallsPerTrajectory)).toEqual(recount);
    expect(recount.some((x) => x > 0)).toBe(true);
    expect(stepsChecked).toBeGreaterThan(18);
  });

  it("plays with the gate closed when the episode cap is 0, and refuses GRPO without a world model", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const task = env.suite.get("4x4");
    const observation = await env.reset({ taskId: task.id, seed: 0 });
    const policy = createWmGatedPolicy("linear", new Parameters(), snapshotWorldModel(env), {
      stepCap: 4,
      episodeCap: 0,
    });
    const { candidates } = await policy.propose(
      { task, observation, history: [], stepIndex: 0 },
      { n: 1, temperature: 1, random: createRandom("closed", 0) },
    );
    expect(countWmCalls(candidates[0]?.raw ?? "")).toBe(0);
    expect(candidates[0]?.raw).toContain("WM gate: closed");
    expect(gateProbability(new Parameters(), { baseFeatures: [[]], stepIndex: 0, callsSoFar: 0 }, 1)).toBe(
      0.5,
    );
    await env.close();
    const options = GrpoOptionsSchema.parse({ iterations: 1, wm: {}, rollouts: { group: 2, tMax: 1 } });
    const bandit = createBanditEnvironment("coin");
    await expect(
      trainGrpo({ env: bandit, tasks: bandit.suite.list(), runtime: createRuntime() }, options, {
        family: "bandit",
        seed: "0",
      }),
    ).rejects.toThrow(/needs a world model/);
  });
});
