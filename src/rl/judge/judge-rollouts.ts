import type { Runtime } from "../../core/index.ts";
import { createChatClient, type LlmConfig } from "../../llm/index.ts";
import type { RunStore } from "../../store/contract.ts";
import { GroupMetaSchema, type JudgedSuccess } from "../rollout-groups.ts";
import { judgeFailureError } from "./judge.ts";
import { type JudgeSummary, judgeTrajectories } from "./judge-run.ts";
import type { JudgeOptions } from "./judgment-schema.ts";

/** `rl rollouts --success judge`: the judge model's endpoint (validated) and the judge's options. */
export interface JudgeSpec {
  llm: LlmConfig;
  options: JudgeOptions;
}

export interface JudgedRollouts {
  /** For `scoreRolloutGroups`: R_success is the judged verdict; a member whose judgment failed is excluded. */
  success: JudgedSuccess;
  /** The run summary's `judge` (counts, agreement with the verifier, one stored judgment per member). */
  summary: JudgeSummary;
  /** Set when members were complete but none could be judged: the run fails with it (exit 4). */
  error?: Error;
}

/**
 * Judges every complete member (`meta.rl`) of an rl run with the LLM judge, storing each judgment as an
 * artefact referenced from the summary. Members that failed in the environment are not judged (they
 * are excluded already). After an abort nothing is judged (and so nothing scored).
 */
export async function judgeRolloutRun(
  store: RunStore,
  runId: string,
  spec: JudgeSpec,
  runtime: Runtime,
  signal?: AbortSignal,
): Promise<JudgedRollouts> {
  // An interrupted run is not judged: its members get no verdict, so none is scored.
  const members = signal?.aborted
    ? []
    : [...store.iterateTrajectories(runId, { status: "complete" })].filter(
        (t) => GroupMetaSchema.safeParse((t.meta as { rl?: unknown }).rl).success,
      );
  const client = createChatClient(spec.llm, runtime);
  const judged = await judgeTrajectories(
    store,
    runId,
    members,
    { client, ...(signal ? { signal } : {}) },
    spec.options,
    spec.llm.concurrency,
  );
  const firstFailure = judged.failures.values().next().value;
  return {
    success: { verdicts: judged.verdicts },
    summary: judged.summary,
    ...(judged.verdicts.size === 0 && firstFailure ? { error: judgeFailureError(firstFailure) } : {}),
  };
}
