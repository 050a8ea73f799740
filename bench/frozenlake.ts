import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/core/index.ts";
import { systemClock } from "../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../src/policies/random-policy.ts";
import { runEpisodes } from "../src/rollout/index.ts";
import { createMemoryStore, openSqliteStore, type RunStore } from "../src/store/index.ts";

export interface FrozenLakeBench {
  /** Environment steps per second with no store (the reference). */
  stepsPerSecondNoStore: number;
  stepsPerSecondMemoryStore: number;
  stepsPerSecondSqliteStore: number;
  /** Throughput relative to the no-store reference measured in the same run. */
  ratioMemoryStore: number;
  ratioSqliteStore: number;
  episodes: number;
}

async function measure(store: RunStore | undefined, episodes: number): Promise<number> {
  const env = createFrozenLakeEnvironment({});
  const runtime = createRuntime({ seed: "bench", clock: systemClock });
  const tasks = [env.suite.get("8x8"), env.suite.get("4x4")];
  const runId = "run_bench";
  store?.createRun({
    id: runId,
    kind: "bench",
    seed: "bench",
    config: {},
    codeVersion: "bench",
    createdAtMs: 0,
  });
  const start = performance.now();
  const { results } = await runEpisodes(
    { env, policy: createRandomPolicy(), runtime, ...(store ? { store } : {}) },
    { runId, tasks, episodes: episodes / 2, seed: "bench", temperature: 1 },
  );
  const seconds = (performance.now() - start) / 1000;
  await env.close();
  const steps = results.reduce((a, r) => a + r.steps, 0);
  return steps / seconds;
}

/** FrozenLake steps per second with and without store writes; each figure the median of 3 rounds. */
export async function benchFrozenLake(episodes = 2000): Promise<FrozenLakeBench> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const none: number[] = [];
  const memory: number[] = [];
  const sqlite: number[] = [];
  await measure(undefined, 200); // warm-up (JIT)
  for (let round = 0; round < 3; round++) {
    none.push(await measure(undefined, episodes));
    const mem = createMemoryStore();
    memory.push(await measure(mem, episodes));
    mem.close();
    const dir = mkdtempSync(join(tmpdir(), "rehearsal-bench-"));
    const sq = openSqliteStore({ dir });
    sqlite.push(await measure(sq, episodes));
    sq.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ref = median(none);
  return {
    stepsPerSecondNoStore: ref,
    stepsPerSecondMemoryStore: median(memory),
    stepsPerSecondSqliteStore: median(sqlite),
    ratioMemoryStore: median(memory) / ref,
    ratioSqliteStore: median(sqlite) / ref,
    episodes,
  };
}
