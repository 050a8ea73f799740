import { isRehearsalError, ProviderError, type Task, type Trajectory } from "../../core/index.ts";
import { type ChatClient, extractJsonCandidates, fencedBlocks } from "../../llm/index.ts";
import { judgeMessages } from "./judge-prompt.ts";
import {
  type JudgeCall,
  type JudgeFailure,
  type JudgeOptions,
  type JudgeReply,
  JudgeReplySchema,
  type JudgmentRecord,
  JudgmentRecordSchema,
} from "./judgment-schema.ts";

/** The verdict in a judge reply: the last JSON object of the shape `{success: boolean, reason: string}`. */
export function parseJudgeReply(
  raw: string,
): { ok: true; verdict: JudgeReply } | { ok: false; error: string } {
  const regions = fencedBlocks(raw);
  const candidates = (regions.length > 0 ? regions : [raw]).flatMap((r) => extractJsonCandidates(r));
  for (const c of [...candidates].reverse()) {
    if (c.kind !== "value") continue;
    const parsed = JudgeReplySchema.safeParse(c.value);
    if (parsed.success) return { ok: true, verdict: parsed.data };
  }
  const reason =
    candidates.length === 0
      ? "no JSON object in the reply"
      : candidates.some((c) => c.kind === "truncated")
        ? "the JSON object is cut off"
        : 'no JSON object of the shape {"success": boolean, "reason": string}';
  return { ok: false, error: reason };
}

export interface JudgeDeps {
  client: ChatClient;
  signal?: AbortSignal;
}

/** The error a judge failure stands for (category provider, exit 4), e.g. when nothing could be judged. */
export function judgeFailureError(failure: JudgeFailure): ProviderError {
  return new ProviderError(failure.code, failure.message);
}

const REPLY_SHAPE = '{"success": boolean, "reason": string}';

/**
 * Judges one trajectory. Two evaluations (seeds `seed` and `seed + 2`); a reply that does not parse is
 * retried once with the next seed, and an evaluation whose two replies do not parse fails the judgment
 * (`unparsable`, never a silent `false`). When the two verdicts agree that is the verdict (`agree`);
 * when they disagree a third evaluation (seed `seed + 4`) decides (`tiebreak`). A provider failure
 * (after the client's own retries) fails the judgment (`provider`). An abort is rethrown.
 */
export async function judgeTrajectory(
  deps: JudgeDeps,
  task: Pick<Task, "instruction">,
  trajectory: Pick<Trajectory, "id" | "taskId" | "steps" | "finalObservation" | "outcome" | "status">,
  options: JudgeOptions,
): Promise<JudgmentRecord> {
  const messages = judgeMessages(task, trajectory, options);
  const calls: JudgeCall[] = [];
  const model = deps.client.config.model;
  const base = {
    version: 1 as const,
    trajectoryId: trajectory.id,
    taskId: trajectory.taskId,
    model,
    verifier: trajectory.outcome ? { success: trajectory.outcome.success } : null,
  };
  const evaluate = async (evaluation: number): Promise<JudgeReply | null> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const seed = options.seed + 2 * evaluation + attempt;
      const r = await deps.client.complete({
        messages,
        n: 1,
        temperature: options.temperature,
        maxTokens: options.maxTokens,
        seed,
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
      const raw = r.texts[0] ?? "";
      const parsed = parseJudgeReply(raw);
      if (parsed.ok) {
        calls.push({ evaluation, attempt, seed, raw, verdict: parsed.verdict });
        return parsed.verdict;
      }
      calls.push({ evaluation, attempt, seed, raw, parseError: parsed.error });
    }
    return null;
  };
  const done = (final: JudgmentRecord["final"], failure?: JudgeFailure): JudgmentRecord => {
    calls.sort((a, b) => a.evaluation - b.evaluation || a.attempt - b.attempt);
    return JudgmentRecordSchema.parse({ ...base, calls, final, ...(failure ? { failure } : {}) });
  };
  const unparsable = (evaluation: number): JudgeFailure => ({
    kind: "unparsable",
    code: "judge.unparsable",
    message: `LLM judge (model ${model}) of trajectory ${trajectory.id}: evaluation ${evaluation + 1} replied twice without a ${REPLY_SHAPE} object. Fix: use a judge model that follows JSON instructions, or raise --judge-max-tokens when replies are cut off`,
  });
  try {
    const [first, second] = await Promise.allSettled([evaluate(0), evaluate(1)]);
    for (const r of [first, second]) if (r.status === "rejected") throw r.reason;
    const a = (first as PromiseFulfilledResult<JudgeReply | null>).value;
    const b = (second as PromiseFulfilledResult<JudgeReply | null>).value;
    if (a === null || b === null) return done(null, unparsable(a === null ? 0 : 1));
    if (a.success === b.success) return done({ success: a.success, reason: a.reason, method: "agree" });
    const c = await evaluate(2);
    if (c === null) return done(null, unparsable(2));
    return done({ success: c.success, reason: c.reason, method: "tiebreak" });
  } catch (error) {
    if (deps.signal?.aborted || !isRehearsalError(error) || error.category !== "provider") throw error;
    return done(null, { kind: "provider", code: error.code, message: error.message });
  }
}
