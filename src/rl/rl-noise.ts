import { z } from "zod";
import { type PlannedNoiseEvent, sampleSchedule } from "../noise/index.ts";

/**
 * Noise on RL rollout groups (SEEDS.md §1 "RL groups: one schedule per group"): the training
 * generators only (held-out ones are for evaluation), the fire count from the task's success rate,
 * seeded by purpose "rl", the task and the group seed — which every member of a group shares, so every
 * member gets the same schedule.
 */
export const RlNoiseSpecSchema = z
  .object({
    set: z.literal("train"),
    /** The success rate s the fire count is drawn from, for every task (else each task's curated rate). */
    successRate: z.number().min(0).max(1).optional(),
  })
  .strict();
export type RlNoiseSpec = z.infer<typeof RlNoiseSpecSchema>;

/** s for a task with neither `--noise-rate` nor a curated rate: the "≥ 0.5" bucket, 3 to 5 events. */
export const DEFAULT_NOISE_SUCCESS_RATE = 0.5;

/** The schedule of a group: its task, its seed, the task's success rate s, within T_max steps. */
export function groupNoiseSchedule(
  taskId: string,
  groupSeed: number,
  successRate: number,
  tMax: number,
): PlannedNoiseEvent[] {
  return sampleSchedule({
    taskId,
    rollout: groupSeed,
    purpose: "rl",
    successRate,
    split: "train",
    options: { horizon: tMax },
  }).events;
}

/** What an rl run records of its noise (`summary.noise`): the set and every group's schedule. */
export const RlNoiseRecordSchema = z.object({
  set: z.literal("train"),
  groups: z.array(
    z.object({
      taskId: z.string(),
      groupSeed: z.number().int().nonnegative(),
      successRate: z.number(),
      /** Where s came from: the --noise-rate flag, the curation manifest, or the default. */
      rateFrom: z.enum(["flag", "curation", "default"]),
      events: z.array(
        z.object({ id: z.string(), step: z.number().int(), generator: z.string(), seed: z.number() }),
      ),
    }),
  ),
});
export type RlNoiseRecord = z.infer<typeof RlNoiseRecordSchema>;
