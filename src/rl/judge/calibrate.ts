import { z } from "zod";
import { UserError } from "../../core/index.ts";
import type { RunStore } from "../../store/contract.ts";
import type { JudgeDeps } from "./judge.ts";
import { JudgeSummarySchema, judgeTrajectories } from "./judge-run.ts";
import type { JudgeOptions } from "./judgment-schema.ts";

/** `rl calibrate-judge`: the judge against the programmatic verifier on one stored run. */
export const CalibrationReportSchema = JudgeSummarySchema.extend({
  runId: z.string(),
  /** Complete trajectories with a verifier outcome, judged (up to `limit`). */
  considered: z.number().int().nonnegative(),
  /** Trajectories left out: not complete, or without a verifier outcome, or past the limit. */
  skipped: z.number().int().nonnegative(),
  /** Of the `tiebreaks`, how many final verdicts agree with the verifier. */
  tiebreaksAgreeing: z.number().int().nonnegative(),
  disagreements: z.array(
    z.object({
      trajectoryId: z.string(),
      taskId: z.string(),
      verifier: z.boolean(),
      judge: z.boolean(),
      method: z.enum(["agree", "tiebreak"]),
      reason: z.string(),
    }),
  ),
  failures: z.array(
    z.object({ trajectoryId: z.string(), kind: z.string(), code: z.string(), message: z.string() }),
  ),
});
export type CalibrationReport = z.infer<typeof CalibrationReportSchema>;

/**
 * Judges the complete trajectories of stored run `runId` whose verifier verdict is known (episode
 * order, at most `limit`) and reports the judge's agreement with the verifier: accuracy, Cohen's κ,
 * the confusion matrix, the disagreements (with the judge's reason), the tiebreaks and the failures.
 * Every judgment is stored as an artefact and the report as the run summary's `judgeCalibration`
 * (replacing an earlier one), so `runs show RUN --json` finds it.
 */
export async function calibrateJudge(
  store: RunStore,
  runId: string,
  deps: JudgeDeps & { nowMs: () => number },
  options: JudgeOptions,
  select: { limit?: number; concurrency?: number } = {},
): Promise<CalibrationReport> {
  const run = store.getRun(runId);
  if (!run)
    throw new UserError(
      "judge.unknown_run",
      `rl calibrate-judge: no run ${runId} in this store. Fix: list runs with 'rehearsal runs list' (and pass the same --store)`,
    );
  const all = store.listTrajectories(runId);
  const known = all.filter((t) => t.status === "complete" && t.outcome !== undefined);
  const chosen = known.slice(0, select.limit ?? known.length);
  if (chosen.length === 0)
    throw new UserError(
      "judge.nothing_to_judge",
      `rl calibrate-judge: run ${runId} has no complete trajectory with a verifier outcome (${all.length} trajectories). Fix: calibrate on a run that finished episodes, e.g. one from 'rehearsal run'`,
    );
  const trajectories = chosen.map((h) => {
    const t = store.getTrajectory(h.id);
    if (!t)
      throw new UserError(
        "judge.unknown_trajectory",
        `trajectory ${h.id} of run ${runId} vanished while judging`,
      );
    return t;
  });
  const judged = await judgeTrajectories(store, runId, trajectories, deps, options, select.concurrency);
  const records = judged.records;
  const report = CalibrationReportSchema.parse({
    ...judged.summary,
    runId,
    considered: chosen.length,
    skipped: all.length - chosen.length,
    tiebreaksAgreeing: records.filter(
      (r) => r.final?.method === "tiebreak" && r.final.success === r.verifier?.success,
    ).length,
    disagreements: records.flatMap((r) =>
      r.final && r.verifier && r.final.success !== r.verifier.success
        ? [
            {
              trajectoryId: r.trajectoryId,
              taskId: r.taskId,
              verifier: r.verifier.success,
              judge: r.final.success,
              method: r.final.method,
              reason: r.final.reason,
            },
          ]
        : [],
    ),
    failures: records.flatMap((r) => (r.failure ? [{ trajectoryId: r.trajectoryId, ...r.failure }] : [])),
  });
  store.updateRun(runId, {
    summary: { ...run.summary, judgeCalibration: report },
    updatedAtMs: deps.nowMs(),
  });
  return report;
}
