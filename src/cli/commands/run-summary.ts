import type { RunSummary, TaskSummary } from "../../rollout/index.ts";
import { formatPercent, type Output } from "../output.ts";

export function printRunSummary(
  o: Output,
  run: { runId: string; status: string; env: string; policy: string; summary: RunSummary },
): void {
  const s = run.summary;
  o.result(run);
  o.line(`run ${run.runId} (${run.status}) — env ${run.env}, policy ${run.policy}`);
  o.table(
    ["episodes", "success rate", "mean reward", "mean length", "parse errors", "infra failures"],
    [
      [
        s.episodes,
        formatPercent(s.successRate),
        s.meanReward.toFixed(3),
        s.meanSteps.toFixed(2),
        s.parseErrors,
        s.infraFailed,
      ],
    ],
  );
  if (s.perTask.length > 1) printPerTask(o, s.perTask);
}

/** The per-task table of a run: episodes, successes, success rate, mean length. */
export function printPerTask(o: Output, perTask: ReadonlyArray<TaskSummary>): void {
  o.table(
    ["task", "episodes", "successes", "success rate", "mean length"],
    perTask.map((t) => [
      t.taskId,
      t.episodes,
      t.successes,
      formatPercent(t.successRate),
      t.meanSteps.toFixed(2),
    ]),
  );
}
