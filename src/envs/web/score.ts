import type { Task, VerifierResult } from "../../core/index.ts";
import type { PageGlobals } from "./page-agent.ts";
import { RAW_REWARD_RANGE, rewardOutOfRange } from "./web-errors.ts";

/**
 * The task's own reward as a verifier result. Finished: reward = max(0, WOB_RAW_REWARD_GLOBAL) (MiniWoB
 * uses -1 for failures), success iff raw ≥ the task's threshold (default exactly 1). Unfinished: 0.
 * A raw reward outside RAW_REWARD_RANGE [-1, 1] is no reward at all: `env.reward_out_of_range`.
 */
export function scoreGlobals(globals: PageGlobals, task: Task): VerifierResult {
  const threshold = task.verifier.successThreshold ?? 1;
  if (!globals.done) {
    return {
      reward: 0,
      success: false,
      reason: "episode not finished",
      metrics: { rawReward: 0, finished: 0 },
    };
  }
  const raw = globals.rawReward;
  if (!(raw >= RAW_REWARD_RANGE.min && raw <= RAW_REWARD_RANGE.max)) throw rewardOutOfRange(task.id, raw);
  return {
    reward: Math.max(0, raw),
    success: raw >= threshold,
    reason: globals.reason ?? (raw >= threshold ? "task completed" : "task failed"),
    metrics: { rawReward: raw, timeReward: globals.reward, finished: 1, threshold },
  };
}
