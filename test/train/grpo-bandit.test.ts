import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/core/index.ts";
import { logitsOf, Parameters, scoreState, softmax } from "../../src/policies/trainable/index.ts";
import { GrpoOptionsSchema, type GrpoStart, trainGrpo } from "../../src/train/index.ts";
import { createBanditEnvironment } from "./bandit-env.ts";

async function rightArmProbability(weights: Record<string, number>, kind: "tabular" | "linear") {
  const env = createBanditEnvironment({ left: 0.3, right: 0.7 });
  const task = env.suite.get("bandit");
  const observation = await env.reset({ taskId: "bandit", seed: 0 });
  const state = scoreState(kind, { task, observation, history: [], stepIndex: 0 });
  const probs = softmax(logitsOf(Parameters.from(weights), state.features));
  const right = state.actions.findIndex((a) => a.type === "move" && a.direction === "right");
  return probs[right] ?? 0;
}

describe("GRPO on a two-armed bandit", () => {
  it.each(["tabular", "linear"] as const)("the %s policy converges to the better arm", async (kind) => {
    const env = createBanditEnvironment({ left: 0.3, right: 0.7 });
    const options = GrpoOptionsSchema.parse({
      kind,
      iterations: 30,
      learningRate: 0.5,
      kl: 0.01,
      rollouts: { group: 16, tMax: 1 },
    });
    const checkpoint = await trainGrpo({ env, tasks: env.suite.list(), runtime: createRuntime() }, options, {
      family: "bandit",
      seed: "7",
    });
    expect(await rightArmProbability({}, kind)).toBeCloseTo(0.5, 10);
    expect(await rightArmProbability(checkpoint.weights, kind)).toBeGreaterThan(0.9);
    const curve = checkpoint.training?.curve ?? [];
    expect(curve).toHaveLength(30);
    const early = curve.slice(0, 5).reduce((a, p) => a + (p.successRate ?? 0), 0) / 5;
    const late = curve.slice(-5).reduce((a, p) => a + (p.successRate ?? 0), 0) / 5;
    expect(late).toBeGreaterThan(early + 0.15);
  });

  it("is deterministic per seed, and a resumed run reaches the same checkpoint", async () => {
    const options = GrpoOptionsSchema.parse({ iterations: 6, rollouts: { group: 8, tMax: 1 } });
    const play = (o = options, resume?: GrpoStart["resume"], seed = "3") => {
      const env = createBanditEnvironment({ left: 0.3, right: 0.7 });
      return trainGrpo({ env, tasks: env.suite.list(), runtime: createRuntime() }, o, {
        family: "bandit",
        seed,
        ...(resume ? { resume } : {}),
      });
    };
    const whole = await play();
    expect(await play()).toEqual(whole);
    const half = await play({ ...options, iterations: 3 });
    const resumed = await play(options, JSON.parse(JSON.stringify(half)));
    expect(resumed.weights).toEqual(whole.weights);
    expect(resumed.training?.curve).toEqual(whole.training?.curve);
    expect((await play(options, undefined, "4")).weights).not.toEqual(whole.weights);
  });
});
