import { mean } from "./advantages.ts";
import { DIFFICULTIES, type Difficulty, difficultyOf, HARD_MIN_STEPS } from "./hard-subset.ts";
import type { RolloutGroupsReport, ScoredMember } from "./rollout-groups.ts";

/** Means over a set of scored members: success rate, length, WM calls per trajectory, reward and parts. */
export interface RolloutMetrics {
  trajectories: number;
  successRate: number;
  meanLength: number;
  wmCallsPerTrajectory: number;
  meanReward: number;
  meanParts: { success: number; length: number; wm: number };
}

/** The metrics of `members` (all zero for none). */
export function memberMetrics(members: ReadonlyArray<ScoredMember>): RolloutMetrics {
  return {
    trajectories: members.length,
    successRate: mean(members.map((m) => (m.success ? 1 : 0))),
    meanLength: mean(members.map((m) => m.length)),
    wmCallsPerTrajectory: mean(members.map((m) => m.wmCalls)),
    meanReward: mean(members.map((m) => m.reward)),
    meanParts: {
      success: mean(members.map((m) => m.parts.success)),
      length: mean(members.map((m) => m.parts.length)),
      wm: mean(members.map((m) => m.parts.wm)),
    },
  };
}

/** One group's metrics with its task's oracle length and subset. */
export type GroupMetrics = {
  groupId: string;
  taskId: string;
  oracleSteps: number | null;
  subset: Difficulty;
} & RolloutMetrics;

/** The metrics of a subset's kept members, with its tasks. */
export type SubsetMetrics = { tasks: string[] } & RolloutMetrics;

/**
 * Per kept group, over all of them, and per subset (hard: the task's oracle needs ≥ `hardMinSteps`
 * steps; easy: fewer; unknown: no oracle length in `oracleSteps`). Dropped groups and infra failures
 * are not scored, so not here.
 */
export function rolloutMetrics(
  report: RolloutGroupsReport,
  oracleSteps: Readonly<Record<string, number | null>> = {},
  hardMinSteps = HARD_MIN_STEPS,
): {
  perGroup: GroupMetrics[];
  all: RolloutMetrics;
  hardMinSteps: number;
  subsets: Record<Difficulty, SubsetMetrics>;
} {
  const perGroup = report.groups.map((g) => {
    const steps = oracleSteps[g.taskId] ?? null;
    return {
      groupId: g.groupId,
      taskId: g.taskId,
      oracleSteps: steps,
      subset: difficultyOf(steps, hardMinSteps),
      ...memberMetrics(g.members),
    };
  });
  const subset = (d: Difficulty): SubsetMetrics => {
    const groups = report.groups.filter((_, i) => perGroup[i]?.subset === d);
    return {
      tasks: [...new Set(groups.map((g) => g.taskId))],
      ...memberMetrics(groups.flatMap((g) => g.members)),
    };
  };
  return {
    perGroup,
    all: memberMetrics(report.groups.flatMap((g) => g.members)),
    hardMinSteps,
    subsets: Object.fromEntries(DIFFICULTIES.map((d) => [d, subset(d)])) as Record<Difficulty, SubsetMetrics>,
  };
}
