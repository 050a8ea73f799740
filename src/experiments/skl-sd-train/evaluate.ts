import type { Environment } from "../../core/environment.ts";
import { stableSeed } from "../../core/hash.ts";
import type { Policy } from "../../core/policy.ts";
import { createRandom } from "../../core/random.ts";
import type { FrozenLakeSuite } from "../../envs/frozenlake/suite.ts";
import { memoryRecorder, playEpisode } from "../../knowledge/play-episode.ts";

export interface SplitScore {
  maps: number;
  episodes: number;
  successes: number;
  /** successes / episodes: each episode is one sample, so this is pass@1 over the split's maps. */
  pass1: number;
  /** Maps with at least one success among their episodes. */
  mapsSolved: number;
}

export interface EvalSpec {
  env: Environment;
  suite: FrozenLakeSuite;
  seed: number;
  episodes: number;
  horizon: number;
  temperature: number;
  /** A stop request: the episode in flight ends `aborted` and the split throws the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * Plays `policy` `episodes` times on each map of `taskIds` in the real environment, through the shared
 * episode loop (each episode recorded in a fresh in-memory run). The environment's seeds depend only on
 * (seed, map, episode), not on the policy: every policy meets the same slips (common random numbers).
 */
export async function evaluateSplit(
  spec: EvalSpec,
  policy: Policy,
  taskIds: ReadonlyArray<string>,
  label: string,
): Promise<SplitScore> {
  const recorder = {
    ...memoryRecorder(String(spec.seed), `skl-sd-eval-${label}`),
    ...(spec.signal ? { signal: spec.signal } : {}),
  };
  let successes = 0;
  let mapsSolved = 0;
  let played = 0;
  for (const taskId of taskIds) {
    const task = spec.suite.get(taskId);
    let solved = false;
    for (let e = 0; e < spec.episodes; e++) {
      const episode = await playEpisode({
        id: `${label}:${taskId}:${e}`,
        env: spec.env,
        policy,
        task,
        seed: stableSeed(String(spec.seed), "skl-sd-eval-env", taskId, e),
        episodeIndex: played++,
        recorder,
        maxSteps: spec.horizon,
        temperature: spec.temperature,
        random: (step) => createRandom(String(spec.seed), "skl-sd-eval-policy", taskId, e, step),
      });
      if (episode.success) {
        successes += 1;
        solved = true;
      }
    }
    if (solved) mapsSolved += 1;
  }
  return {
    maps: taskIds.length,
    episodes: played,
    successes,
    pass1: played === 0 ? 0 : successes / played,
    mapsSolved,
  };
}
