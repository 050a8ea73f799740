import { z } from "zod";
import { ActionSchema, SCHEMA_VERSION } from "./action.ts";
import { ActionErrorSchema, ObservationSchema } from "./observation.ts";
import { VerifierResultSchema } from "./verifier.ts";

/** One recorded step: the observation the policy saw, what it chose, and what happened. */
export const StepRecordSchema = z.object({
  index: z.number().int().nonnegative(),
  observation: ObservationSchema,
  /** null when the policy's output did not parse (the environment was then not stepped). */
  action: ActionSchema.nullable(),
  raw: z.string(),
  parseError: ActionErrorSchema.optional(),
  reward: z.number().finite(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: z.record(z.string(), z.unknown()),
  timeMs: z.number(),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

export const TrajectoryStatusSchema = z.enum(["running", "complete", "infra_failed", "aborted"]);
export type TrajectoryStatus = z.infer<typeof TrajectoryStatusSchema>;

export const ErrorInfoSchema = z.object({
  code: z.string(),
  category: z.string(),
  message: z.string(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

export const TrajectorySchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  id: z.string(),
  runId: z.string(),
  taskId: z.string(),
  episodeIndex: z.number().int().nonnegative(),
  seed: z.number().int().nonnegative(),
  policy: z.string(),
  status: TrajectoryStatusSchema,
  steps: z.array(StepRecordSchema),
  /** The observation after the last step. */
  finalObservation: ObservationSchema.optional(),
  /** Verifier outcome; present only for complete episodes. */
  outcome: VerifierResultSchema.optional(),
  /** Infrastructure failure that ended the episode (status infra_failed). */
  error: ErrorInfoSchema.optional(),
  startedAtMs: z.number(),
  endedAtMs: z.number().optional(),
  meta: z.record(z.string(), z.unknown()).default({}),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;
