import { z } from "zod";
import { optionsParser } from "../parse-options.ts";

/**
 * The composite reward R = α·R_success + β·R_L + γ·R_WM (WM-R1). Defaults α 1.0, β 0.5, γ 0.1 — γ is
 * 0.1, never a silent 0. A weight of 0 keeps its part computed and reported (a logged metric) while it
 * adds nothing to R.
 */
export const RewardOptionsSchema = z
  .object({
    alpha: z.number().finite().min(0).default(1.0),
    beta: z.number().finite().min(0).default(0.5),
    gamma: z.number().finite().min(0).default(0.1),
    /** L_max, the longest allowed trajectory (the horizon T_max). Default: the longest in the group. */
    maxLength: z.number().finite().positive().optional(),
    /** N_max, the most WM calls allowed per trajectory. Default: the most any member of the group made. */
    maxWmCalls: z.number().finite().min(0).optional(),
    /** A budget whose magnitude is at most this is "zero" and is not divided by (see `budgetDeviation`). */
    budgetEpsilon: z.number().finite().positive().max(1e-3).default(1e-9),
  })
  .strict();
export type RewardOptions = z.infer<typeof RewardOptionsSchema>;
export type RewardOptionsInput = z.input<typeof RewardOptionsSchema>;

/** Validated reward options; an invalid one is a UserError naming the field. */
export const parseRewardOptions = optionsParser(RewardOptionsSchema, {
  code: "reward_options",
  root: "rewards",
  hint: "weights are numbers ≥ 0 (defaults alpha 1, beta 0.5, gamma 0.1)",
});
