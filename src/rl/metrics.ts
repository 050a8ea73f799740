import { mean } from "./advantages.ts";
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

/** Per kept group and over all of them (dropped groups and infra failures are not scored, so not here). */
export function rolloutMetrics(report: RolloutGroupsReport): {
  perGroup: Array<{ groupId: string; taskId: string } & RolloutMetrics>;
  all: RolloutMetrics;
} {
  return {
    perGroup: report.groups.map((g) => ({
      groupId: g.groupId,
      taskId: g.taskId,
      ...memberMetrics(g.members),
    })),
    all: memberMetrics(report.groups.flatMap((g) => g.members)),
  };
}
