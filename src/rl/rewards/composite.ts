import { type BudgetStats, budgetDeviation, budgetReward, budgetStats } from "./budget.ts";
import type { RewardOptions } from "./options.ts";

/** What the reward reads of one trajectory: its own verifier result, length and WM-call count. */
export interface RewardInput {
  id: string;
  success: boolean;
  /** Steps taken (L_i). */
  length: number;
  /** `<call_wm>` calls of this trajectory alone (N_WM^(i)), counted from its own steps. */
  wmCalls: number;
}

/** The parts of one member's reward: each part is reported whatever its weight. */
export interface RewardParts {
  success: number;
  length: number;
  wm: number;
  /** λ of the length and μ of the WM calls. */
  lengthLambda: number;
  wmLambda: number;
}

export interface MemberReward extends RewardInput {
  parts: RewardParts;
  /** α·R_success + β·R_L + γ·R_WM. */
  reward: number;
}

/** A group's statistics: c successes of N, p = c/N, and the two budgets. */
export interface GroupRewardStats {
  c: number;
  n: number;
  p: number;
  length: BudgetStats;
  wm: BudgetStats;
  weights: { alpha: number; beta: number; gamma: number };
}

/**
 * The composite rewards of one rollout group (the members of one task from one initial state). Every
 * statistic is of this group; each member's WM-call count is its own (a counter per trajectory, so a
 * count never carries over from an earlier episode).
 */
export function groupRewards(
  members: ReadonlyArray<RewardInput>,
  options: RewardOptions,
): { stats: GroupRewardStats; members: MemberReward[] } {
  const wins = members.map((m) => m.success);
  const length = budgetStats(
    members.map((m) => m.length),
    wins,
    options.maxLength,
  );
  const wm = budgetStats(
    members.map((m) => m.wmCalls),
    wins,
    options.maxWmCalls,
  );
  const c = wins.filter(Boolean).length;
  const { alpha, beta, gamma, budgetEpsilon: eps } = options;
  const out = members.map((m): MemberReward => {
    const lengthLambda = budgetDeviation(m.length, length.budget, eps);
    const wmLambda = budgetDeviation(m.wmCalls, wm.budget, eps);
    const parts: RewardParts = {
      success: m.success ? 1 : 0,
      length: budgetReward(m.success, lengthLambda),
      wm: budgetReward(m.success, wmLambda),
      lengthLambda,
      wmLambda,
    };
    const reward = alpha * parts.success + beta * parts.length + gamma * parts.wm;
    return { ...m, parts, reward };
  });
  return {
    stats: {
      c,
      n: members.length,
      p: members.length === 0 ? 0 : c / members.length,
      length,
      wm,
      weights: { alpha, beta, gamma },
    },
    members: out,
  };
}
