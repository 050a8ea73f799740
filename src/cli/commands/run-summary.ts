import type { RunSummary, TaskSummary } from "../../rollout/index.ts";
import { formatInfraCodes, type InfraFailures } from "../../runner/infra-failures.ts";
import { formatPercent, type Output } from "../output.ts";

export function printRunSummary(
  o: Output,
  run: {
    runId: string;
    status: string;
    env: string;
    policy: string;
    summary: RunSummary & { infraFailures?: InfraFailures };
  },
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
  if (s.infraFailures) printInfraFailures(o, run.runId, s.infraFailures, `${s.episodes} episodes`);
}

/**
 * A run that completed with some work lost to the environment says so, with the codes: its success
 * rate is over the episodes that ran, and the failures are the environment's to fix, not the policy's.
 */
export function printInfraFailures(o: Output, runId: string, f: InfraFailures, of: string): void {
  if (f.count === 0) return;
  const first = f.first ? `; first: ${f.first.message}` : "";
  o.line(
    `infra failures: ${f.count} of ${of} failed in the environment (${formatInfraCodes(f)})${first}; see 'rehearsal runs show ${runId}'`,
  );
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
