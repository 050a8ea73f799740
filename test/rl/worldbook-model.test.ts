import { describe, expect, it } from "vitest";
import { createRandom, createRuntime, type Environment, type Policy } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment, type FrozenLakeConfigInput } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  countWmCalls,
  parseWmLookaheadOptions,
  playRolloutGroups,
  RolloutGroupOptionsSchema,
  scoreRolloutGroups,
  wmLookaheadPolicy,
  worldbookWorldModel,
} from "../../src/rl/index.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { buildWorldbook, worldbookDefaultsFor } from "../../src/worldmodel/index.ts";
import { recordTraces } from "../worldmodel/environment/fixtures.ts";

/** A worldbook from 60 real random-walk episodes of FrozenLake 4x4, with the family's build defaults. */
async function lakeBook(config: FrozenLakeConfigInput) {
  const env = createFrozenLakeEnvironment(config);
  try {
    const steps = await recordTraces(env, { taskIds: ["4x4"], episodes: 60, maxSteps: 30 });
    return buildWorldbook(steps, worldbookDefaultsFor(["frozenlake"]), { tasks: [env.suite.get("4x4")] });
  } finally {
    await env.close();
  }
}

async function successRate(env: Environment, policy: Policy, seed: string): Promise<number> {
  const store = createMemoryStore();
  const runId = `rl-${policy.name}`;
  store.createRun({ id: runId, kind: "rl", seed, config: {}, codeVersion: "test", createdAtMs: 0 });
  const options = RolloutGroupOptionsSchema.parse({ group: 16, tMax: 15 });
  await playRolloutGroups(
    { env, policy, runtime: createRuntime({ seed }), store },
    { runId, tasks: [env.suite.get("4x4")], seed, temperature: 1, options },
  );
  const report = scoreRolloutGroups([...store.iterateTrajectories(runId)], options);
  return report.groups[0]?.stats.p ?? 0;
}

describe("the worldbook world model for wm-lookahead", () => {
  it("predicts from the observation alone (never touching the environment) what the real step gives", async () => {
    const book = await lakeBook({ slippery: false });
    const wm = worldbookWorldModel(book);
    const env = createFrozenLakeEnvironment({ slippery: false });
    const task = env.suite.get("4x4");
    let observation = await env.reset({ taskId: task.id, seed: 3 });
    const random = createRandom("wm", 3);
    for (let step = 0; step < 10; step++) {
      const legal = observation.legalActions ?? [];
      const action = legal[Math.floor(random.next() * legal.length)];
      if (!action) break;
      const predicted = await wm.predict(action, { task, observation });
      const real = await env.step(action);
      // On still ice the worldbook's rules are exact: the same text, reward and ending.
      expect(predicted.observation.text).toBe(real.observation.text);
      expect([predicted.reward, predicted.terminated]).toEqual([real.reward, real.terminated]);
      observation = real.observation;
      if (real.terminated || real.truncated) break;
    }
    await env.close();
  });

  it("lookahead with the worldbook succeeds more often than the same base policy without it", async () => {
    const book = await lakeBook({ slippery: false });
    const env = createFrozenLakeEnvironment({ slippery: false });
    const base = await successRate(env, createRandomPolicy(), "7");
    const look = wmLookaheadPolicy(
      createRandomPolicy(),
      worldbookWorldModel(book),
      parseWmLookaheadOptions({}),
    );
    const withWm = await successRate(env, look, "7");
    await env.close();
    expect(withWm).toBeGreaterThan(base);
  });

  it("a book of several families is refused with a user error", async () => {
    const book = await lakeBook({ slippery: true });
    const mixed = { ...book, manifest: { ...book.manifest, families: ["frozenlake", "web"] } };
    expect(() => worldbookWorldModel(mixed)).toThrow(/one family/);
    const transcript = await wmLookaheadPolicy(createRandomPolicy(), worldbookWorldModel(book), {
      candidates: 2,
      cap: 1,
    }).propose(
      {
        task: createFrozenLakeEnvironment({}).suite.get("4x4"),
        observation: await createFrozenLakeEnvironment({}).reset({ taskId: "4x4", seed: 0 }),
        history: [],
        stepIndex: 0,
      },
      { n: 1, temperature: 1, random: createRandom("x", 0) },
    );
    expect(countWmCalls(transcript.candidates[0]?.raw ?? "")).toBe(1);
  });
});
