import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  createRandom,
  createRuntime,
  type Environment,
  type Policy,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  countWmCalls,
  parseWmLookaheadOptions,
  playRolloutGroups,
  RolloutGroupOptionsSchema,
  scoreRolloutGroups,
  snapshotWorldModel,
  trajectoryWmCalls,
  wmLookaheadPolicy,
} from "../../src/rl/index.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";

async function fingerprint(env: Environment): Promise<string> {
  return canonicalJson(await env.snapshot?.());
}

async function groups(env: Environment, policy: Policy, seed: string) {
  const store = createMemoryStore();
  const runId = `rl-${policy.name}`;
  store.createRun({ id: runId, kind: "rl", seed, config: {}, codeVersion: "test", createdAtMs: 0 });
  const options = RolloutGroupOptionsSchema.parse({ group: 8, tMax: 15 });
  await playRolloutGroups(
    { env, policy, runtime: createRuntime({ seed }), store },
    { runId, tasks: [env.suite.get("4x4")], seed, temperature: 1, options },
  );
  const trajectories = [...store.iterateTrajectories(runId)];
  return { trajectories, report: scoreRolloutGroups(trajectories, options) };
}

describe("wm-lookahead over the perfect (snapshot) world model", () => {
  it("imagined calls leave the committed state unchanged (fingerprints) and predict the committed step", async () => {
    const env = createFrozenLakeEnvironment({ slippery: true });
    const task = env.suite.get("4x4");
    let observation = await env.reset({ taskId: task.id, seed: 5 });
    const policy = wmLookaheadPolicy(
      createRandomPolicy(),
      snapshotWorldModel(env),
      parseWmLookaheadOptions({}),
    );
    const random = createRandom("t", 5);
    for (let step = 0; step < 6; step++) {
      const before = await fingerprint(env);
      const proposal = await policy.propose(
        { task, observation, history: [], stepIndex: step },
        { n: 1, temperature: 1, random },
      );
      expect(await fingerprint(env)).toBe(before);
      const [c] = proposal.candidates;
      expect(countWmCalls(c?.raw ?? "")).toBeGreaterThan(0);
      const predicted = new RegExp(
        `<call_wm>${JSON.stringify(c?.action).replace(/[{}[\]()]/g, "\\$&")}</call_wm>\\n<wm_answer>\\nSystem \\(WM\\): reward (\\S+), terminated (\\S+),`,
      ).exec(c?.raw ?? "");
      const result = await env.step(c?.action as NonNullable<typeof c>["action"] & object);
      // The perfect model restored the random state too: the committed step is the predicted one.
      expect([predicted?.[1], predicted?.[2]]).toEqual([String(result.reward), String(result.terminated)]);
      observation = result.observation;
      if (result.terminated || result.truncated) break;
    }
    await env.close();
  });

  it("keeps within the per-step cap; counts are per trajectory (reset every episode)", async () => {
    const env = createFrozenLakeEnvironment({ slippery: true });
    const policy = wmLookaheadPolicy(
      createRandomPolicy(),
      snapshotWorldModel(env),
      parseWmLookaheadOptions({ candidates: 8, cap: 2 }),
    );
    const { trajectories } = await groups(env, policy, "c");
    await env.close();
    for (const t of trajectories) {
      for (const s of t.steps) expect(countWmCalls(s.raw)).toBeLessThanOrEqual(2);
      expect(trajectoryWmCalls(t)).toBeLessThanOrEqual(2 * t.steps.length);
      expect(trajectoryWmCalls(t)).toBe(t.steps.reduce((a, s) => a + countWmCalls(s.raw), 0));
    }
  });

  it("succeeds more often than the same base policy without world-model calls (FrozenLake 4x4, slippery)", async () => {
    const base = await groups(createFrozenLakeEnvironment({ slippery: true }), createRandomPolicy(), "7");
    const env = createFrozenLakeEnvironment({ slippery: true });
    const look = await groups(
      env,
      wmLookaheadPolicy(createRandomPolicy(), snapshotWorldModel(env), parseWmLookaheadOptions({})),
      "7",
    );
    await env.close();
    const rate = (r: typeof base) => r.report.groups[0]?.stats.p ?? 0;
    expect(rate(look)).toBeGreaterThan(rate(base));
    expect(base.report.groups[0]?.members.every((m) => m.wmCalls === 0)).toBe(true);
    expect(look.report.groups[0]?.members.every((m) => m.wmCalls > 0)).toBe(true);
  });

  it("the perfect world model needs snapshots: a user error otherwise", () => {
    const env = createFrozenLakeEnvironment({});
    const noSnap = new Proxy(env, {
      get: (t, k) => (k === "capabilities" ? { ...t.capabilities, snapshot: false } : Reflect.get(t, k, t)),
    });
    expect(() => snapshotWorldModel(noSnap)).toThrow(/needs an environment with snapshot/);
  });
});
