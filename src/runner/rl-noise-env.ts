import type { Environment, Task } from "../core/index.ts";
import { NoisyEnvironment } from "../noise/index.ts";
import {
  type CurationManifest,
  DEFAULT_NOISE_SUCCESS_RATE,
  groupNoiseSchedule,
  groupSeed,
  type RlNoiseRecord,
  type RlNoiseSpec,
} from "../rl/index.ts";

/**
 * `rl rollouts --noise train`: `env` wrapped so every episode fires the schedule drawn from its task
 * and episode seed — the group seed, shared by every member — with s from `--noise-rate`, else the
 * task's curated rate, else the default. Returns the wrapped environment and what the run records
 * (`summary.noise`: each group's planned events). A family that cannot be perturbed is a UserError.
 */
export function rlNoisyEnvironment(
  env: Environment,
  tasks: ReadonlyArray<Task>,
  spec: { seed: string; tMax: number; noise: RlNoiseSpec; curation?: CurationManifest },
): { env: NoisyEnvironment; record: RlNoiseRecord } {
  const curated = new Map((spec.curation?.kept ?? []).map((k) => [k.taskId, k.rate]));
  const rateOf = (taskId: string): { successRate: number; rateFrom: "flag" | "curation" | "default" } => {
    if (spec.noise.successRate !== undefined)
      return { successRate: spec.noise.successRate, rateFrom: "flag" };
    const rate = curated.get(taskId);
    if (rate !== undefined && rate !== null) return { successRate: rate, rateFrom: "curation" };
    return { successRate: DEFAULT_NOISE_SUCCESS_RATE, rateFrom: "default" };
  };
  const noisy = new NoisyEnvironment(env, {
    scheduleFor: (taskId, seed) => groupNoiseSchedule(taskId, seed, rateOf(taskId).successRate, spec.tMax),
  });
  const groups = tasks.map((t) => {
    const seed = groupSeed(spec.seed, t.id);
    const rate = rateOf(t.id);
    return {
      taskId: t.id,
      groupSeed: seed,
      ...rate,
      events: groupNoiseSchedule(t.id, seed, rate.successRate, spec.tMax),
    };
  });
  return { env: noisy, record: { set: "train", groups } };
}
