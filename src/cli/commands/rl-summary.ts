import type { RolloutGroupsReport, rolloutMetrics } from "../../rl/index.ts";
import { formatPercent, type Output } from "../output.ts";

type RlMetrics = ReturnType<typeof rolloutMetrics>;

/**
 * The rollout groups of an rl run as a table: per group (with its task's oracle length and subset),
 * then all, then the hard / easy / unknown subsets; then the dropped groups.
 */
export function printGroups(o: Output, runId: string, report: RolloutGroupsReport, metrics: RlMetrics): void {
  const row = (group: string, task: string, oracle: string, m: RlMetrics["all"]) => [
    group,
    task,
    oracle,
    m.trajectories,
    formatPercent(m.successRate),
    m.meanReward.toFixed(3),
    `${m.meanParts.success.toFixed(2)} / ${m.meanParts.length.toFixed(2)} / ${m.meanParts.wm.toFixed(2)}`,
    m.meanLength.toFixed(2),
    m.wmCallsPerTrajectory.toFixed(2),
  ];
  const subsets = (["hard", "easy", "unknown"] as const)
    .filter((d) => metrics.subsets[d].trajectories > 0)
    .map((d) =>
      row(
        `${d} subset`,
        `${metrics.subsets[d].tasks.length} tasks`,
        subsetRule(d, metrics.hardMinSteps),
        metrics.subsets[d],
      ),
    );
  o.table(
    [
      "group",
      "task",
      "oracle steps",
      "members",
      "success",
      "mean R",
      "R_success / R_L / R_WM",
      "mean length",
      "WM calls/traj",
    ],
    [
      ...metrics.perGroup.map((g) => row(g.groupId, g.taskId, `${g.oracleSteps ?? "-"} (${g.subset})`, g)),
      row("all", "-", "-", metrics.all),
      ...subsets,
    ],
  );
  for (const d of report.dropped) o.line(`dropped group ${d.groupId}: ${d.reason}`);
  o.line(
    `${report.groups.length} group${report.groups.length === 1 ? "" : "s"} scored, ${report.dropped.length} dropped; rewards and advantages are in 'rehearsal runs show ${runId} --json' (summary.rl) and 'rehearsal rl export --run ${runId}'`,
  );
}

function subsetRule(d: "hard" | "easy" | "unknown", min: number): string {
  if (d === "hard") return `≥ ${min}`;
  return d === "easy" ? `< ${min}` : "no oracle";
}
