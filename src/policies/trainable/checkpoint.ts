import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { formatIssues, parseJsonText, UserError } from "../../core/index.ts";
import { readUserFile } from "./read-text.ts";
import { WmGateOptionsSchema } from "./wm-gate.ts";

/** The checkpoint format's version: a reader refuses any other. */
export const CHECKPOINT_VERSION = 1;

export const TrainableKindSchema = z.enum(["tabular", "linear"]);
export type TrainableKind = z.infer<typeof TrainableKindSchema>;

/** One point of a learning curve (GRPO: per iteration; SFT: per epoch). */
export const CurvePointSchema = z
  .object({
    iteration: z.number().int().nonnegative(),
    loss: z.number(),
    successRate: z.number().min(0).max(1).optional(),
    meanReward: z.number().optional(),
    meanLength: z.number().optional(),
    kl: z.number().optional(),
    /** `<call_wm>` calls per trajectory of the iteration's rollouts (0 for the plain policies). */
    wmCallsPerTrajectory: z.number().nonnegative().optional(),
  })
  .strict();
export type CurvePoint = z.infer<typeof CurvePointSchema>;

/**
 * A trainable policy's parameters, versioned: the kind (tabular | linear), the family it was trained
 * on (when known), the named weights (absent = 0) and how it was trained (which command, the options,
 * the iterations done and the curve so far, so `train grpo --resume` continues from it), and for the
 * WM-consulting policy its caps (`wm`).
 */
export const CheckpointSchema = z
  .object({
    format: z.literal("rehearsal-trainable-policy"),
    version: z.literal(CHECKPOINT_VERSION),
    kind: TrainableKindSchema,
    family: z.string().min(1).optional(),
    /**
     * Set when the policy consults a world model (`wm-*` gate weights among the weights): its caps.
     * Optional, so every earlier checkpoint still reads; played without a world model, the gate and
     * WM weights are inert and the action weights play as the plain policy.
     */
    wm: WmGateOptionsSchema.optional(),
    weights: z.record(z.string(), z.number().finite()),
    training: z
      .object({
        method: z.enum(["init", "sft", "grpo"]),
        seed: z.string(),
        /** Iterations (GRPO) or epochs (SFT) done. */
        iterations: z.number().int().nonnegative(),
        options: z.record(z.string(), z.unknown()).default({}),
        curve: z.array(CurvePointSchema).default([]),
        /** The reference (initial) policy's weights, for the KL term of a resumed GRPO run. */
        reference: z.record(z.string(), z.number().finite()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** A fresh checkpoint: all weights 0 (the uniform policy over the candidates). */
export function emptyCheckpoint(kind: TrainableKind, family?: string): Checkpoint {
  return {
    format: "rehearsal-trainable-policy",
    version: CHECKPOINT_VERSION,
    kind,
    ...(family ? { family } : {}),
    weights: {},
  };
}

/** Reads and validates a checkpoint file; every problem is a UserError naming the file and the fix. */
export function readCheckpoint(path: string): Checkpoint {
  const text = readUserFile(
    path,
    "checkpoint.unreadable",
    "policy checkpoint",
    "check the path (make one with 'rehearsal train sft' or 'train grpo')",
  );
  return parseJsonText(text, CheckpointSchema, {
    syntax: (e) =>
      new UserError("checkpoint.syntax", `policy checkpoint ${path} is not valid JSON: ${e.message}`, {
        cause: e,
      }),
    invalid: (error) =>
      new UserError(
        "checkpoint.invalid",
        `policy checkpoint ${path} is not a version-${CHECKPOINT_VERSION} rehearsal checkpoint: ${formatIssues(error.issues, { root: "checkpoint" })}`,
      ),
  });
}

/** Writes a checkpoint atomically (a temporary file renamed into place), creating its folder. */
export function writeCheckpoint(path: string, checkpoint: Checkpoint): void {
  const valid = CheckpointSchema.parse(checkpoint);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(valid, null, 1)}\n`);
  renameSync(tmp, path);
}
