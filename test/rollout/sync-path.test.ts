import { expect, it } from "vitest";
import {
  createRandom,
  createRuntime,
  type Environment,
  type Policy,
  syncTwinOf,
  withSyncTwin,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";

/*
 * The rollout loop calls `propose.sync` and `step.sync` where the policy's and the environment's
 * methods carry one (no promise turn a step). Played with and without them, the same run gives the
 * same results and stores the same trajectories; a wrapper that replaces `step` is never skipped.
 */

/** The environment with plain asynchronous members (no synchronous twins). */
function asyncOnly(env: Environment): Environment {
  return {
    family: env.family,
    capabilities: env.capabilities,
    suite: env.suite,
    reset: (o) => env.reset(o),
    step: (a) => env.step(a),
    evaluate: () => env.evaluate(),
    fingerprint: () => env.fingerprint(),
    close: () => env.close(),
  };
}

async function record(sync: boolean) {
  const inner = createFrozenLakeEnvironment({});
  const random = createRandomPolicy();
  const policy: Policy = sync ? random : { name: random.name, propose: (c, o) => random.propose(c, o) };
  let syncSteps = 0;
  const innerSync = syncTwinOf(inner.step);
  expect(innerSync).toBeDefined();
  // Counts the calls of the synchronous twin (the loop must take it).
  const env: Environment = sync
    ? {
        ...asyncOnly(inner),
        step: withSyncTwin((a) => {
          syncSteps += 1;
          return (innerSync as NonNullable<typeof innerSync>)(a);
        }),
      }
    : asyncOnly(inner);
  const store = createMemoryStore();
  store.createRun({ id: "run", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
  const { results } = await runEpisodes(
    { env, policy, runtime: createRuntime({ seed: "s" }), store },
    {
      runId: "run",
      tasks: [inner.suite.get("8x8"), inner.suite.get("4x4")],
      episodes: 20,
      seed: "s",
      temperature: 1,
    },
  );
  const trajectories = [...store.iterateTrajectories("run")].map(({ id: _id, ...t }) => t);
  store.close();
  await inner.close();
  return { results: results.map(({ trajectoryId: _t, ...r }) => r), trajectories, syncSteps };
}

it("plays and stores the same run with the synchronous step and proposal as with the promises", async () => {
  const viaSync = await record(true);
  const viaAsync = await record(false);
  const steps = viaSync.results.reduce((a, r) => a + r.steps, 0);
  expect(steps).toBeGreaterThan(100);
  expect(viaSync.syncSteps).toBe(steps);
  expect(viaSync.results).toEqual(viaAsync.results);
  expect(viaSync.trajectories).toEqual(viaAsync.trajectories);
});

it("a wrapper that replaces step (a proxy, a spread) has no twin: the loop takes the wrapper's step", async () => {
  const inner = createFrozenLakeEnvironment({});
  let wrapped = 0;
  const proxy = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "step") return typeof value === "function" ? value.bind(target) : value;
      return async (...args: Parameters<Environment["step"]>) => {
        wrapped += 1;
        return target.step(...args);
      };
    },
  });
  expect(syncTwinOf(proxy.step)).toBeUndefined();
  const spread: Environment = {
    ...asyncOnly(inner),
    step: async (a) => {
      wrapped += 1;
      return inner.step(a);
    },
  };
  for (const env of [proxy, spread]) {
    const before = wrapped;
    const { results } = await runEpisodes(
      { env, policy: createRandomPolicy(), runtime: createRuntime({ seed: "s" }) },
      { runId: "run", tasks: [inner.suite.get("8x8")], episodes: 5, seed: "s", temperature: 1 },
    );
    expect(wrapped - before).toBe(results.reduce((a, r) => a + r.steps, 0));
  }
  await inner.close();
});

it("the random policy's propose.sync proposes what propose does from the same stream", async () => {
  const policy = createRandomPolicy();
  const proposeNow = syncTwinOf(policy.propose);
  expect(proposeNow).toBeDefined();
  const env = createFrozenLakeEnvironment({});
  const observation = await env.reset({ taskId: "8x8", seed: 3 });
  const context = { task: env.suite.get("8x8"), observation, history: [], stepIndex: 0 };
  const options = (seed: number) => ({ n: 5, temperature: 1, random: createRandom("t", seed) });
  for (let seed = 0; seed < 20; seed++)
    expect(proposeNow?.(context, options(seed))).toEqual(await policy.propose(context, options(seed)));
  await env.close();
});

it("withSyncTwin's async method rejects with what its twin throws", async () => {
  const method = withSyncTwin((x: number) => {
    if (x < 0) throw new RangeError("negative");
    return x * 2;
  });
  expect(await method(2)).toBe(4);
  expect(syncTwinOf(method)?.(3)).toBe(6);
  await expect(method(-1)).rejects.toThrow(RangeError);
  expect(() => syncTwinOf(method)?.(-1)).toThrow(RangeError);
});
