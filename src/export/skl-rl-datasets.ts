import { z } from "zod";

/** Which way the (z, z_hat) distillation pairs are meant to be used (seed 001, appendix E). */
export const KlDirectionSchema = z.enum(["forward", "reverse"]);
export type KlDirection = z.infer<typeof KlDirectionSchema>;

/**
 * The SKL-RL dataset records (GRPO trajectories with their simulations, and (z, z_hat) distillation
 * pairs), built over the schemas of a simulated branch and of z_hat's fields, which the knowledge layer
 * owns. Write them with `writeValidatedJsonl`.
 */
export function sklRlRecordSchemas<B extends z.ZodType, F extends z.ZodType>(
  BranchSchema: B,
  SimulationKnowledgeFieldsSchema: F,
) {
  const MessageSchema = z
    .object({ role: z.enum(["system", "user", "assistant"]), content: z.string().min(1) })
    .strict();

  /** Knowledge as a record carries it: the entry's text and fields (null fields: no entry yet). */
  const KnowledgeSnapshotSchema = z
    .object({
      version: z.number().int().nonnegative(),
      text: z.string().min(1),
      fields: z.record(z.string(), z.unknown()).nullable(),
    })
    .strict();

  /** One real step of a simulation-augmented trajectory: s_t, τ_N^H(s_t), z_hat, a_t. */
  const SklStepSchema = z
    .object({
      stepIndex: z.number().int().nonnegative(),
      /** The FEN of s_t (the knowledge key). */
      stateKey: z.string().min(1),
      /** Real-environment fingerprints before the simulations, after them, and after the real step. */
      fingerprintBefore: z.string().regex(/^[0-9a-f]{64}$/),
      fingerprintAfterSimulation: z.string().regex(/^[0-9a-f]{64}$/),
      fingerprintAfterStep: z.string().regex(/^[0-9a-f]{64}$/),
      /** The GRPO prompt: system + user (observation text and z_hat text). */
      prompt: z.array(MessageSchema).length(2),
      /** The chosen action as the model would answer it (JSON of a UCI action). */
      completion: z.string().min(1),
      action: z.string().regex(/^[a-h][1-8][a-h][1-8][qrbn]?$/),
      /** `z_hat`: the unique best simulated move; `policy`: ties or unknown, the acting policy chose. */
      actionSource: z.enum(["z_hat", "policy"]),
      opponentReply: z.string().nullable(),
      stepReward: z.number(),
      simulations: z.array(BranchSchema),
      z: KnowledgeSnapshotSchema,
      zHat: KnowledgeSnapshotSchema.extend({ fields: SimulationKnowledgeFieldsSchema }),
    })
    .strict();

  /** One episode for GRPO: every real step with its simulations; the final reward supervises all of them. */
  const SklTrajectoryRecordSchema = z
    .object({
      kind: z.literal("skl-rl-trajectory"),
      episodeId: z.string().min(1),
      puzzleId: z.string().min(1),
      expertRate: z.number().min(0).max(1),
      seed: z.number().int().nonnegative(),
      budget: z.object({ n: z.number().int().positive(), h: z.number().int().positive() }).strict(),
      status: z.enum(["won", "lost", "draw", "truncated", "running"]),
      /** The episode's final reward R (+1 win, -1 loss, 0 otherwise). */
      reward: z.number(),
      steps: z.array(SklStepSchema),
    })
    .strict();

  /** One (z, z_hat) pair for distillation; `objective` names the intended KL direction. */
  const SklDistillRecordSchema = z
    .object({
      kind: z.literal("skl-rl-distill"),
      objective: KlDirectionSchema,
      episodeId: z.string().min(1),
      puzzleId: z.string().min(1),
      expertRate: z.number().min(0).max(1),
      stepIndex: z.number().int().nonnegative(),
      stateKey: z.string().min(1),
      /** The student's context: the observation alone (no simulations). */
      prompt: z.array(MessageSchema).length(2),
      z: KnowledgeSnapshotSchema,
      zHat: KnowledgeSnapshotSchema.extend({ fields: SimulationKnowledgeFieldsSchema }),
    })
    .strict();

  return { KnowledgeSnapshotSchema, SklStepSchema, SklTrajectoryRecordSchema, SklDistillRecordSchema };
}
