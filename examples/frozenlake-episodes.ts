// Plays FrozenLake episodes with a built-in policy and with a policy written here, recording every
// step in an in-memory run store, then prints each policy's success rate.
// Run from a checkout: node --conditions=rehearsal-source --import tsx examples/frozenlake-episodes.ts
// (with the package installed, plain `npx tsx examples/frozenlake-episodes.ts` resolves "rehearsal").
import {
  type Action,
  createFrozenLakeEnvironment,
  createMemoryStore,
  createOraclePolicy,
  createRandomPolicy,
  createRuntime,
  type Policy,
  runEpisodes,
} from "rehearsal";

/** A policy is anything with `propose`: here, "go right until the wall, then go down". */
const rightThenDown: Policy = {
  name: "right-then-down",
  async propose(context, { n }) {
    const column = context.stepIndex % 4;
    const action: Action = { type: "move", direction: column < 3 ? "right" : "down" };
    return { candidates: Array.from({ length: n }, () => ({ action, raw: JSON.stringify(action) })) };
  },
};

const runtime = createRuntime({ seed: "example" });
const store = createMemoryStore();
const env = createFrozenLakeEnvironment({ slippery: false });
const tasks = ["4x4", "random-5-0", "random-5-1"].map((id) => env.suite.get(id));

for (const policy of [createRandomPolicy(), createOraclePolicy(), rightThenDown]) {
  const runId = `run-${policy.name}`;
  store.createRun({
    id: runId,
    kind: "run",
    seed: "example",
    config: {},
    codeVersion: "example",
    createdAtMs: 0,
  });
  for (const task of tasks) store.putTask(runId, task);
  const { summary } = await runEpisodes(
    { env, policy, runtime, store },
    { runId, tasks, episodes: 4, seed: "example", temperature: 1 },
  );
  console.log(`${policy.name}: ${summary.episodes} episodes, success rate ${summary.successRate.toFixed(2)}`);
}
await env.close();
store.close();
