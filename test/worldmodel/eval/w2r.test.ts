import { describe, expect, it } from "vitest";
import type { Action, Environment } from "../../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../../src/envs/frozenlake/index.ts";
import { recordFamilyTraces } from "../../../src/experiments/worldmodel/record.ts";
import { createRandomPolicy } from "../../../src/policies/random-policy.ts";
import { createScriptedPolicy } from "../../../src/policies/scripted-policy.ts";
import { createWorldModelEnvironment } from "../../../src/worldmodel/environment/index.ts";
import { worldToReal } from "../../../src/worldmodel/eval/w2r.ts";
import { buildWorldbook } from "../../../src/worldmodel/index.ts";

const LOOKUPS = [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }];
/** The safe path to the goal on the 4x4 map (non-slippery). */
const PATH = ["down", "down", "right", "right", "down", "right"].map((direction) => ({
  type: "move",
  direction,
})) as Action[];
const lake = (slippery: boolean) => async () => createFrozenLakeEnvironment({ slippery });

/** Replays `actions` in a fresh real environment, stopping where it ends: success and final reward. */
async function replay(env: Environment, taskId: string, seed: number, actions: ReadonlyArray<Action>) {
  await env.reset({ taskId, seed, maxSteps: Math.max(1, actions.length) });
  let steps = 0;
  for (const a of actions) {
    steps++;
    const r = await env.step(a);
    if (r.terminated || r.truncated) break;
  }
  const outcome = await env.evaluate();
  return { steps, success: outcome.success, reward: outcome.reward };
}

describe("worldToReal", () => {
  it("the same dynamics on both sides: ratio 1 and every final reward agrees", async () => {
    const simulated = createFrozenLakeEnvironment({ slippery: false });
    const tasks = [simulated.suite.get("4x4")];
    const result = await worldToReal({
      simulated,
      real: lake(false),
      policy: createScriptedPolicy(PATH),
      tasks,
      seeds: [1, 2, 3],
      maxSteps: PATH.length,
    });
    expect(result.tasks).toEqual([
      { taskId: "4x4", episodes: 3, simulatedSuccess: 1, realSuccess: 1, ratio: 1, rewardAgreement: 1 },
    ]);
    expect(result.episodes.every((e) => e.actions.length === PATH.length && e.replayed === PATH.length)).toBe(
      true,
    );
  });

  it("a plan that wins on still ice mostly fails on a slippery real lake: real below simulated", async () => {
    const simulated = createFrozenLakeEnvironment({ slippery: false });
    const seeds = Array.from({ length: 20 }, (_, i) => i);
    const result = await worldToReal({
      simulated,
      real: lake(true),
      policy: createScriptedPolicy(PATH),
      tasks: [simulated.suite.get("4x4")],
      seeds,
      maxSteps: PATH.length,
    });
    const [task] = result.tasks;
    expect(task?.simulatedSuccess).toBe(1);
    expect(task?.realSuccess).toBeLessThan(0.5);
    expect(task?.ratio).toBe(task?.realSuccess);
    expect(task?.rewardAgreement).toBeCloseTo(task?.realSuccess ?? -1, 9);
    // Replays stop where the real episode ends (a hole), so some play fewer actions than planned.
    expect(result.episodes.some((e) => e.replayed < e.actions.length)).toBe(true);
  });

  it("a random policy in a worldbook built from real traces: the real figures are the replays' own", async () => {
    const rec = await recordFamilyTraces({
      name: "w2r-fl",
      family: "frozenlake",
      envOptions: { slippery: true },
      tasks: ["4x4"],
      batches: [{ policy: "random", episodes: 80 }],
      seed: "w2r",
    });
    const book = buildWorldbook(rec.steps, { lookups: LOOKUPS }, { tasks: rec.tasks });
    const simulated = await createWorldModelEnvironment({ book });
    const seeds = Array.from({ length: 12 }, (_, i) => 100 + i);
    const result = await worldToReal({
      simulated,
      real: lake(true),
      policy: createRandomPolicy(),
      tasks: rec.tasks,
      seeds,
      maxSteps: 30,
    });
    expect(result.overall.episodes).toBe(seeds.length);
    expect(result.episodes.map((e) => e.seed)).toEqual(seeds);
    const check = createFrozenLakeEnvironment({ slippery: true });
    for (const e of result.episodes) {
      expect(e.actions.length).toBeGreaterThan(0);
      const real = await replay(check, e.taskId, e.seed, e.actions);
      expect({ replayed: e.replayed, success: e.realSuccess, reward: e.realReward }).toEqual({
        replayed: real.steps,
        success: real.success,
        reward: real.reward,
      });
      expect(e.rewardAgrees).toBe(e.simulatedReward === e.realReward);
    }
    const rate = (f: (e: (typeof result.episodes)[number]) => boolean) =>
      result.episodes.filter(f).length / seeds.length;
    expect(result.overall.simulatedSuccess).toBe(rate((e) => e.simulatedSuccess));
    expect(result.overall.realSuccess).toBe(rate((e) => e.realSuccess));
    expect(result.overall.rewardAgreement).toBe(rate((e) => e.rewardAgrees));
  });

  it("refuses no seeds and no tasks with typed user errors", async () => {
    const simulated = createFrozenLakeEnvironment({ slippery: false });
    const base = { simulated, real: lake(false), policy: createRandomPolicy() };
    const tasks = [simulated.suite.get("4x4")];
    await expect(worldToReal({ ...base, tasks, seeds: [] })).rejects.toMatchObject({
      code: "w2r.bad_options",
      category: "user",
    });
    await expect(worldToReal({ ...base, tasks: [], seeds: [1] })).rejects.toMatchObject({
      code: "w2r.no_tasks",
    });
  });
});
