import { z } from "zod";
import { canonicalJson, type Task, type Trajectory, UserError } from "../../core/index.ts";
import type { RunStore } from "../../store/contract.ts";
import { type Agreement, agreementOf, confusionOf } from "./agreement.ts";
import { type JudgeDeps, judgeTrajectory } from "./judge.ts";
import {
  type JudgeFailure,
  type JudgeOptions,
  JudgeOptionsSchema,
  type JudgmentRecord,
  JudgmentRecordSchema,
  type JudgmentRef,
  JudgmentRefSchema,
} from "./judgment-schema.ts";

/** What a run's summary keeps of its judgments (`summary.judge`): the counts, κ and one ref per trajectory. */
export const JudgeSummarySchema = z.object({
  model: z.string(),
  options: JudgeOptionsSchema,
  judged: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  tiebreaks: z.number().int().nonnegative(),
  agreement: z.object({
    n: z.number().int().nonnegative(),
    confusion: z.object({ tp: z.number(), fn: z.number(), fp: z.number(), tn: z.number() }),
    accuracy: z.number().nullable(),
    kappa: z.number().nullable(),
    kappaUndefined: z.string().optional(),
  }),
  judgments: z.array(JudgmentRefSchema),
});
export type JudgeSummary = z.infer<typeof JudgeSummarySchema>;

export interface JudgedTrajectories {
  summary: JudgeSummary;
  /** Every judgment in full, in the trajectories' order (as stored). */
  records: JudgmentRecord[];
  /** Judged success by trajectory id (judgments that reached a verdict only). */
  verdicts: Map<string, boolean>;
  /** The failed judgments by trajectory id. */
  failures: Map<string, JudgeFailure>;
}

/** Stores a judgment record as a JSON artefact (content-addressed) and returns its ref. */
export function storeJudgment(store: RunStore, record: JudgmentRecord): JudgmentRef {
  const bytes = new TextEncoder().encode(canonicalJson(JudgmentRecordSchema.parse(record)));
  const { sha256 } = store.putArtefact(bytes, "application/json");
  return {
    trajectoryId: record.trajectoryId,
    success: record.final?.success ?? null,
    method: record.final?.method ?? "failed",
    verifierSuccess: record.verifier?.success ?? null,
    artefact: sha256,
  };
}

/** The full judgment a ref points at, read back and validated (undefined when the artefact is missing). */
export function readJudgment(
  store: RunStore,
  ref: Pick<JudgmentRef, "artefact">,
): JudgmentRecord | undefined {
  const bytes = store.getArtefact(ref.artefact);
  if (!bytes) return undefined;
  return JudgmentRecordSchema.parse(JSON.parse(new TextDecoder().decode(bytes)));
}

/** The judge summary of a stored run (`summary.judge`), or undefined when the run was not judged. */
export function judgeSummaryOf(summary: Record<string, unknown>): JudgeSummary | undefined {
  const r = JudgeSummarySchema.safeParse(summary.judge);
  return r.success ? r.data : undefined;
}

/**
 * Judges trajectories of a stored run (each with its task's instruction from the run's tasks), up to
 * `concurrency` at a time, stores every judgment as an artefact and returns the verdicts, the failures
 * and the summary (refs in the trajectories' order; agreement with the verifier over the judged ones
 * that have a verifier outcome).
 */
export async function judgeTrajectories(
  store: RunStore,
  runId: string,
  trajectories: ReadonlyArray<Trajectory>,
  deps: JudgeDeps,
  options: JudgeOptions,
  concurrency = 4,
): Promise<JudgedTrajectories> {
  const tasks = new Map<string, Task>(store.listTasks(runId).map((t) => [t.id, t]));
  const records: JudgmentRecord[] = new Array(trajectories.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < trajectories.length; i = next++) {
      const t = trajectories[i] as Trajectory;
      const task = tasks.get(t.taskId);
      if (!task)
        throw new UserError(
          "judge.unknown_task",
          `cannot judge trajectory ${t.id}: run ${runId} has no stored task ${t.taskId}, so there is no instruction to judge against. Fix: judge a run whose tasks were recorded (any run made by rehearsal)`,
        );
      records[i] = await judgeTrajectory(deps, task, t, options);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, trajectories.length)) }, worker));
  const refs = records.map((r) => storeJudgment(store, r));
  const verdicts = new Map<string, boolean>();
  const failures = new Map<string, JudgeFailure>();
  for (const r of records) {
    if (r.final) verdicts.set(r.trajectoryId, r.final.success);
    else if (r.failure) failures.set(r.trajectoryId, r.failure);
  }
  const agreement: Agreement = agreementOf(
    confusionOf(
      records.flatMap((r) =>
        r.final && r.verifier ? [{ verifier: r.verifier.success, judge: r.final.success }] : [],
      ),
    ),
  );
  return {
    verdicts,
    failures,
    records,
    summary: {
      model: deps.client.config.model,
      options,
      judged: verdicts.size,
      failed: failures.size,
      tiebreaks: records.filter((r) => r.final?.method === "tiebreak").length,
      agreement,
      judgments: refs,
    },
  };
}
