import type { EvalOutcome, RunConfig } from "../../runner/index.ts";
import { formatPercent, type Output } from "../output.ts";
import { printInfraFailures } from "./run-summary.ts";

/** The pass@k / pass^k table per group, the per-task table and the action entropy of an eval run. */
export function printEvalReport(
  o: Output,
  run: EvalOutcome,
  ks: ReadonlyArray<number>,
  config: Pick<RunConfig, "episodes" | "temperature">,
): void {
  const { report } = run;
  o.result({
    ...report,
    policy: run.policy,
    rollouts: config.episodes,
    temperature: config.temperature,
    infraFailures: run.infraFailures,
  });
  o.line(
    `eval ${run.runId} — policy ${run.policy}, ${config.episodes} rollouts per task at T=${config.temperature}`,
  );
  o.table(
    ["group", "tasks", ...ks.map((k) => `pass@${k}`), ...ks.map((k) => `pass^${k}`)],
    report.pass.map((p) => [
      p.group,
      p.tasks,
      ...ks.map((k) => formatPercent(p.passAt[k] ?? 0)),
      ...ks.map((k) => formatPercent(p.passHat[k] ?? 0)),
    ]),
  );
  o.table(
    ["task", "split", "tier", "n", "successes", "infra failed", "mean steps"],
    report.perTask.map((t) => [t.taskId, t.split, t.tier, t.n, t.c, t.infraFailed, t.meanSteps.toFixed(2)]),
  );
  const rollouts = report.perTask.reduce((a, t) => a + t.n + t.infraFailed, 0);
  printInfraFailures(o, run.runId, run.infraFailures, `${rollouts} rollouts`);
  if (report.entropy)
    o.line(
      `action entropy: ${report.entropy.meanBits.toFixed(3)} bits over ${report.entropy.states} states (${report.entropy.samples} samples each, T=1)`,
    );
}
