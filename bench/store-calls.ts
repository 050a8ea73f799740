// The memory store's own cost per step: the store calls of 1000 FrozenLake 8x8 episodes (start, every
// step, finish), recorded once from `runEpisodes` with the random policy, then replayed into a fresh
// memory store per round with the very arguments the rollout loop passed. What is timed is the store
// alone, as `env.step` is timed alone in the env-step section, so the two compare like for like; the
// rollout section's write cost (memory − no store, whole loop) is reported beside it. Run by
// bench/rollout.ts.
import { createRuntime, type StepRecord } from "../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../src/policies/random-policy.ts";
import { runEpisodes } from "../src/rollout/index.ts";
import {
  createMemoryStore,
  type NewTrajectory,
  type RunStore,
  type TrajectoryEnd,
} from "../src/store/index.ts";
import { createBenchRun } from "./bench-run.ts";
import { cpuSeconds, median } from "./stats.ts";

interface RecordedEpisode {
  start: NewTrajectory;
  steps: StepRecord[];
  end: TrajectoryEnd;
}

/** The store calls of `episodes` FrozenLake 8x8 episodes of the random policy, in order. */
async function recordEpisodes(episodes: number): Promise<RecordedEpisode[]> {
  const recorded: RecordedEpisode[] = [];
  const inner = createMemoryStore();
  const current = () => recorded[recorded.length - 1] as RecordedEpisode;
  const store: RunStore = {
    ...inner,
    startTrajectory(t) {
      recorded.push({ start: t, steps: [], end: { status: "aborted", endedAtMs: 0 } });
      inner.startTrajectory(t);
    },
    appendStep(id, step) {
      current().steps.push(step);
      inner.appendStep(id, step);
    },
    finishTrajectory(id, end) {
      current().end = end;
      inner.finishTrajectory(id, end);
    },
  };
  const env = createFrozenLakeEnvironment({});
  const runId = createBenchRun(store);
  await runEpisodes(
    { env, policy: createRandomPolicy(), runtime: createRuntime({ seed: "bench" }), store },
    { runId, tasks: [env.suite.get("8x8")], episodes, seed: "bench", temperature: 1 },
  );
  await env.close();
  return recorded;
}

/** CPU µs per step of one replay of `recorded` into a fresh memory store. */
function replayUs(recorded: ReadonlyArray<RecordedEpisode>, steps: number): number {
  const store = createMemoryStore();
  createBenchRun(store);
  const start = process.cpuUsage();
  for (const episode of recorded) {
    const id = episode.start.id;
    store.startTrajectory(episode.start);
    for (const step of episode.steps) store.appendStep(id, step);
    store.finishTrajectory(id, episode.end);
  }
  const us = (cpuSeconds(start) * 1e6) / steps;
  store.close();
  return us;
}

/** The memory store's CPU µs per FrozenLake step (start and finish included): median of 15 replays. */
export async function memoryStoreCallsUs(): Promise<{ usPerStep: number; steps: number }> {
  const recorded = await recordEpisodes(1000);
  const steps = recorded.reduce((n, e) => n + e.steps.length, 0);
  for (let i = 0; i < 5; i++) replayUs(recorded, steps);
  const us: number[] = [];
  for (let i = 0; i < 15; i++) us.push(replayUs(recorded, steps));
  return { usPerStep: median(us), steps };
}
