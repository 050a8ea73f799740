import { z } from "zod";

export const SplitSchema = z.enum(["train", "heldout"]);
export type Split = z.infer<typeof SplitSchema>;

/** How a task's success is decided, as data (the code lives with the environment). */
export const VerifierSpecSchema = z.object({
  kind: z.string().min(1),
  /** Reward at or above which an episode counts as a success (default: exactly 1). */
  successThreshold: z.number().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type VerifierSpec = z.infer<typeof VerifierSpecSchema>;

export const TaskSchema = z.object({
  id: z.string().min(1),
  instruction: z.string(),
  family: z.string().min(1),
  /** Default episode seed; runs may override it per episode. */
  seed: z.number().int().nonnegative().default(0),
  split: SplitSchema.default("train"),
  verifier: VerifierSpecSchema,
  /** Present when the environment has a solver for this task (used by the oracle policy and tests). */
  oracle: z.object({ kind: z.string() }).optional(),
  /** short (1-3 steps) or long (multi-page) and the like: used for per-tier reporting. */
  tier: z.string().optional(),
  maxSteps: z.number().int().positive().optional(),
  tags: z.array(z.string()).default([]),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type Task = z.infer<typeof TaskSchema>;
export type TaskInput = z.input<typeof TaskSchema>;

/** A named, listable set of tasks. */
export interface TaskSuite {
  readonly name: string;
  readonly family: string;
  list(): ReadonlyArray<Task>;
  /** Throws a UserError naming the known ids when `id` is unknown. */
  get(id: string): Task;
}
