import { expect, it } from "vitest";
import { createRandom, createRuntime, type Environment, type Policy } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";

/*
 * The rollout loop calls `proposeSync` and `stepSync` where the policy and the environment have them
 * (no promise turn a step). Played with and without them, the same run gives the same results and
 * stores the same trajectories.
 */

/** The environment with its asynchronous members only. */
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
  const env = createFrozenLakeEnvironment({});
  const random = createRandomPolicy();
  const policy: Policy = sync ? random : { name: random.name, propose: (c, o) => random.propose(c, o) };
  let syncSteps = 0;
  if (sync) {
    // Counts the calls of the synchronous step (the loop must take it).
    const stepSync = env.stepSync?.bind(env);
    expect(stepSync).toBeDefined();
    env.stepSync = (a) => {
      syncSteps += 1;
      return (stepSync as NonNullable<typeof stepSync>)(a);
    };
  }
  const store = createMemoryStore();
  store.createRun({ id: "run", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
  const { results } = await runEpisodes(
    { env: sync ? env : asyncOnly(env), policy, runtime: createRuntime({ seed: "s" }), store },
    {
      runId: "run",
      tasks: [env.suite.get("8x8"), env.suite.get("4x4")],
      episodes: 20,
      seed: "s",
      temperature: 1,
    },
  );
  const trajectories = [...store.iterateTrajectories("run")].map(({ id: _id, ...t }) => t);
  store.close();
  await env.close();
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

it("the random policy's proposeSync proposes what propose does from the same stream", async () => {
  const policy = createRandomPolicy();
  const env = createFrozenLakeEnvironment({});
  const observation = await env.reset({ taskId: "8x8", seed: 3 });
  const context = { task: env.suite.get("8x8"), observation, history: [], stepIndex: 0 };
  const options = (seed: number) => ({ n: 5, temperature: 1, random: createRandom("t", seed) });
  for (let seed = 0; seed < 20; seed++)
    expect(policy.proposeSync?.(context, options(seed))).toEqual(
      await policy.propose(context, options(seed)),
    );
  await env.close();
});
