import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { KnowledgeOptionsError } from "../errors.ts";
import { KlDirectionSchema } from "./options.ts";
import { BranchSchema, SimulationKnowledgeFieldsSchema } from "./z-hat.ts";

const MessageSchema = z
  .object({ role: z.enum(["system", "user", "assistant"]), content: z.string().min(1) })
  .strict();

/** Knowledge as a record carries it: the entry's text and fields (null fields: no entry yet). */
export const KnowledgeSnapshotSchema = z
  .object({
    version: z.number().int().nonnegative(),
    text: z.string().min(1),
    fields: z.record(z.string(), z.unknown()).nullable(),
  })
  .strict();
export type KnowledgeSnapshot = z.infer<typeof KnowledgeSnapshotSchema>;

/** One real step of a simulation-augmented trajectory: s_t, τ_N^H(s_t), z_hat, a_t. */
export const SklStepSchema = z
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
export type SklStep = z.infer<typeof SklStepSchema>;

/** One episode for GRPO: every real step with its simulations; the final reward supervises all of them. */
export const SklTrajectoryRecordSchema = z
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
export type SklTrajectoryRecord = z.infer<typeof SklTrajectoryRecordSchema>;

/** One (z, z_hat) pair for distillation; `objective` names the intended KL direction. */
export const SklDistillRecordSchema = z
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
export type SklDistillRecord = z.infer<typeof SklDistillRecordSchema>;

/**
 * Validates every record, then writes them as JSONL (one JSON object a line, trailing newline; an empty
 * file when there are none). Throws a `KnowledgeOptionsError` naming the first bad record; nothing is
 * written then.
 */
export function writeJsonl<T>(path: string, schema: z.ZodType<T>, records: ReadonlyArray<unknown>): void {
  const lines: string[] = [];
  for (const [index, record] of records.entries()) {
    const parsed = schema.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new KnowledgeOptionsError(
        `SKL-RL record ${index} for ${path}`,
        `${issue?.path.map(String).join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
        parsed.error,
      );
    }
    lines.push(JSON.stringify(parsed.data));
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.length === 0 ? "" : `${lines.join("\n")}\n`);
}
