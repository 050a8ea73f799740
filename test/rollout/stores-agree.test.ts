import { afterAll, expect, it } from "vitest";
import { createRuntime } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import { createMemoryStore, openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { createTempDirs } from "../store/temp-dirs.ts";

/*
 * The same run recorded in the memory store and in the SQLite store (steps batched across the default,
 * a small batch, and one step per commit) reads back identically: the per-step fast path and the batches
 * change how steps are written, never what is stored.
 */

const temp = createTempDirs("stores-agree");
afterAll(() => temp.cleanup());

async function record(store: RunStore) {
  const env = createFrozenLakeEnvironment({});
  store.createRun({ id: "run", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
  const { results } = await runEpisodes(
    { env, policy: createRandomPolicy(), runtime: createRuntime({ seed: "s" }), store },
    {
      runId: "run",
      tasks: [env.suite.get("8x8"), env.suite.get("4x4")],
      episodes: 12,
      seed: "s",
      temperature: 1,
    },
  );
  await env.close();
  const trajectories = [...store.iterateTrajectories("run")].map(({ id: _id, ...t }) => t);
  store.close();
  return { results: results.map(({ trajectoryId: _t, ...r }) => r), trajectories };
}

it("records the same trajectories in the memory store and the SQLite store, batched or not", async () => {
  const memory = await record(createMemoryStore());
  expect(memory.trajectories).toHaveLength(24);
  expect(memory.trajectories.every((t) => t.status === "complete" && t.steps.length > 0)).toBe(true);
  for (const options of [{}, { batchSteps: 5, batchMs: 1e9 }, { batchSteps: 1 }]) {
    const sqlite = await record(openSqliteStore({ dir: temp.make(), ...options }));
    expect(sqlite).toEqual(memory);
  }
});
