import { type Environment, type Policy, type Runtime, stableSeed, type Task } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import { type EpisodeResult, runEpisode } from "./run-episode.ts";
import { type RunSummary, summarizeEpisodes } from "./summary.ts";

export interface BatchSpec {
  runId: string;
  tasks: ReadonlyArray<Task>;
  /** Episodes per task. */
  episodes: number;
  /** Root seed of the run: episode seeds are stable hashes of seed|task|episode. */
  seed: string;
  /** Step limit of every episode, given to the environment too (default: each task's and environment's own). */
  maxSteps?: number;
  temperature: number;
  /** Episodes to leave out (already recorded by an interrupted run being resumed). */
  skip?: (taskId: string, episodeIndex: number) => boolean;
  /** The episode's seed instead of `episodeSeed` (RL rollout groups: one initial state per task). */
  seedOf?: (taskId: string, episodeIndex: number) => number;
  /** Metadata stored with the episode's trajectory (e.g. its rollout group). */
  metaOf?: (taskId: string, episodeIndex: number) => Record<string, unknown>;
}

export interface BatchDeps {
  env: Environment;
  policy: Policy;
  runtime: Runtime;
  store?: RunStore;
  onEpisode?: (result: EpisodeResult, done: number, total: number) => void;
  signal?: AbortSignal;
}

/** The episode seed: a stable 31-bit hash of run seed, task and episode index. */
export function episodeSeed(runSeed: string, taskId: string, episodeIndex: number): number {
  return stableSeed(runSeed, taskId, episodeIndex, "episode") & 0x7fffffff;
}

/**
 * Plays `episodes` episodes of every task (task-major order) on one environment, recording each.
 * Stops early when `signal` aborts; episodes already recorded stay recorded, and the episode in
 * flight ends as `aborted` (not a result: neither an infra failure nor a reward).
 */
export async function runEpisodes(
  deps: BatchDeps,
  spec: BatchSpec,
): Promise<{ results: EpisodeResult[]; summary: RunSummary }> {
  const results: EpisodeResult[] = [];
  const total = spec.tasks.length * spec.episodes;
  for (const task of spec.tasks) {
    for (let e = 0; e < spec.episodes; e++) {
      if (deps.signal?.aborted) return { results, summary: summarizeEpisodes(results) };
      if (spec.skip?.(task.id, e)) continue;
      const result = await runEpisode(
        {
          env: deps.env,
          policy: deps.policy,
          runtime: deps.runtime,
          ...(deps.store ? { store: deps.store } : {}),
          ...(deps.signal ? { signal: deps.signal } : {}),
        },
        {
          runId: spec.runId,
          trajectoryId: deps.runtime.ids.next("traj"),
          task,
          episodeIndex: e,
          seed: spec.seedOf?.(task.id, e) ?? episodeSeed(spec.seed, task.id, e),
          ...(spec.metaOf ? { meta: spec.metaOf(task.id, e) } : {}),
          ...(spec.maxSteps === undefined ? {} : { maxSteps: spec.maxSteps }),
          temperature: spec.temperature,
        },
      ).catch((error: unknown) => {
        if (deps.signal?.aborted) return undefined;
        throw error;
      });
      if (!result) return { results, summary: summarizeEpisodes(results) };
      results.push(result);
      deps.onEpisode?.(result, results.length, total);
    }
  }
  return { results, summary: summarizeEpisodes(results) };
}
