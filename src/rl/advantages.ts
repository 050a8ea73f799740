import { z } from "zod";
import { optionsParser } from "./parse-options.ts";

/**
 * GRPO advantages: A_i = (r_i − mean)/(std + ε). `scaling` chooses the std: `group` (of the member's
 * own group), `batch` (of every reward in the batch: the mean stays the group's), or `none` (no
 * division: A_i = r_i − mean). The std is the population std; a group of ties has advantage 0 for all.
 */
export const AdvantageOptionsSchema = z
  .object({
    scaling: z.enum(["group", "batch", "none"]).default("group"),
    epsilon: z.number().finite().positive().default(1e-6),
    /** Discount of per-step rewards (`stepAdvantages`): 1.0 by default, never a silent 0. */
    discount: z.number().finite().min(0).max(1).default(1.0),
  })
  .strict();
export type AdvantageOptions = z.infer<typeof AdvantageOptionsSchema>;
export type AdvantageScaling = AdvantageOptions["scaling"];

/** Validated advantage options; an invalid one is a UserError naming the field. */
export const parseAdvantageOptions = optionsParser(AdvantageOptionsSchema, {
  code: "advantage_options",
  root: "advantages",
  hint: "scaling is group, batch or none, epsilon > 0, discount in [0, 1]",
});

/** The arithmetic mean (0 for none). */
export function mean(xs: ReadonlyArray<number>): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Population standard deviation. */
export function populationStd(xs: ReadonlyArray<number>): number {
  if (xs.length === 0) return 0;
  const mu = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - mu) ** 2)));
}

/** The advantages of every group's rewards (same shape as `groups`). */
export function groupAdvantages(
  groups: ReadonlyArray<ReadonlyArray<number>>,
  options: AdvantageOptions,
): number[][] {
  const batchStd = populationStd(groups.flat());
  return groups.map((rewards) => {
    const mu = mean(rewards);
    const scale =
      options.scaling === "none"
        ? 1
        : (options.scaling === "batch" ? batchStd : populationStd(rewards)) + options.epsilon;
    return rewards.map((r) => (r - mu) / scale);
  });
}

/**
 * Per-step returns of a trajectory whose only reward is terminal: step t (of `length` steps) gets
 * reward·discount^(length−1−t), so the last step has the whole reward. With discount 1 every step has it.
 */
export function discountedStepRewards(terminalReward: number, length: number, discount: number): number[] {
  return Array.from({ length }, (_, t) => terminalReward * discount ** (length - 1 - t));
}

/**
 * Per-step advantages: each step's discounted share of its trajectory's advantage (the group-normalised
 * advantage is discounted backwards from the last step like a terminal reward).
 */
export function stepAdvantages(advantage: number, length: number, options: AdvantageOptions): number[] {
  return discountedStepRewards(advantage, length, options.discount);
}
