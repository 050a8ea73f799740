import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/core/index.ts";
import { systemClock } from "../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../src/policies/random-policy.ts";
import { runEpisodes } from "../src/rollout/index.ts";
import { createMemoryStore, openSqliteStore, type RunStore } from "../src/store/index.ts";
import { createBenchRun } from "./bench-run.ts";
import { median } from "./stats.ts";

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
  const runId = createBenchRun(store);
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
  const none: number[] = [];
  const memory: number[] = [];
  const sqlite: number[] = [];
  /** One round: steps per second with no store, the memory store and the SQLite store (a temp dir). */
  async function round(): Promise<[number, number, number]> {
    const bare = await measure(undefined, episodes);
    const mem = createMemoryStore();
    const inMemory = await measure(mem, episodes);
    mem.close();
    const dir = mkdtempSync(join(tmpdir(), "rehearsal-bench-"));
    const sq = openSqliteStore({ dir });
    const onDisk = await measure(sq, episodes);
    sq.close();
    rmSync(dir, { recursive: true, force: true });
    return [bare, inMemory, onDisk];
  }
  await round(); // warm-up (JIT) of every path at full size
  for (let r = 0; r < 3; r++) {
    const [bare, inMemory, onDisk] = await round();
    none.push(bare);
    memory.push(inMemory);
    sqlite.push(onDisk);
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
