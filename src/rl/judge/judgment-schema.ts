import { z } from "zod";

/** What the judge model must answer: one JSON object `{success, reason}` (extra keys are ignored). */
export const JudgeReplySchema = z.object({
  success: z.boolean(),
  reason: z.string(),
});
export type JudgeReply = z.infer<typeof JudgeReplySchema>;

/** The judge's knobs (all defaults documented in docs/rl.md, "LLM judge"). */
export const JudgeOptionsSchema = z
  .object({
    /** Base sampling seed: evaluation k, attempt a is sent with seed + 2k + a. */
    seed: z.number().int().min(0).max(1_000_000_000).default(0),
    /** Sampling temperature of every judge call (> 0 so that two evaluations are two samples). */
    temperature: z.number().min(0).max(2).default(0.7),
    /** Completion budget per call. */
    maxTokens: z.number().int().positive().max(100_000).default(512),
    /** Steps rendered at most: the first one and the last `maxSteps − 1` (the rest elided, counted). */
    maxSteps: z.number().int().min(2).max(1000).default(24),
    /** Characters of one step's observation at most (longer ones keep their head and tail). */
    maxObservationChars: z.number().int().min(80).max(100_000).default(600),
    /** Characters of the final observation at most. */
    maxFinalChars: z.number().int().min(80).max(200_000).default(2000),
  })
  .strict();
export type JudgeOptions = z.infer<typeof JudgeOptionsSchema>;
export type JudgeOptionsInput = z.input<typeof JudgeOptionsSchema>;

/** One judge call as made: which evaluation and attempt, its seed, the raw reply and what it parsed to. */
export const JudgeCallSchema = z.object({
  evaluation: z.number().int().min(0).max(2),
  attempt: z.number().int().min(0).max(1),
  seed: z.number().int().nonnegative(),
  raw: z.string(),
  verdict: JudgeReplySchema.optional(),
  /** Why the reply did not parse (absent when it did). */
  parseError: z.string().optional(),
});
export type JudgeCall = z.infer<typeof JudgeCallSchema>;

/** Why a trajectory has no judged verdict: the replies never parsed, or the provider failed. */
export const JudgeFailureSchema = z.object({
  kind: z.enum(["unparsable", "provider"]),
  code: z.string(),
  message: z.string(),
});
export type JudgeFailure = z.infer<typeof JudgeFailureSchema>;

/**
 * Every judgment of one trajectory, stored as a JSON artefact: each call's raw text and parsed verdict,
 * the final verdict and how it was reached (`agree`: the two evaluations agreed; `tiebreak`: they
 * disagreed and a third decided), or the failure. `verifier` is the programmatic verdict beside it.
 */
export const JudgmentRecordSchema = z.object({
  version: z.literal(1),
  trajectoryId: z.string(),
  taskId: z.string(),
  model: z.string(),
  calls: z.array(JudgeCallSchema),
  final: z
    .object({
      success: z.boolean(),
      reason: z.string(),
      method: z.enum(["agree", "tiebreak"]),
    })
    .nullable(),
  failure: JudgeFailureSchema.optional(),
  verifier: z.object({ success: z.boolean() }).nullable(),
});
export type JudgmentRecord = z.infer<typeof JudgmentRecordSchema>;

/** A judgment as referenced from a run summary: the verdict and the artefact holding the whole record. */
export const JudgmentRefSchema = z.object({
  trajectoryId: z.string(),
  success: z.boolean().nullable(),
  method: z.enum(["agree", "tiebreak", "failed"]),
  verifierSuccess: z.boolean().nullable(),
  artefact: z.string().regex(/^[0-9a-f]{64}$/),
});
export type JudgmentRef = z.infer<typeof JudgmentRefSchema>;
