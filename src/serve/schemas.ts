import { z } from "zod";
import { ActionSchema } from "../core/action.ts";
import { ObservationSchema } from "../core/observation.ts";

/**
 * The wire contracts of `rehearsal serve`, OpenEnv-compatible: WebSocket messages `{type, data}`
 * (reset, step, state, close, plus snapshot, restore, fingerprint), HTTP bodies, and the observation
 * payload `{observation: {..., done, reward, metadata}, reward, done, metadata}`.
 */

/** Reset parameters (OpenEnv's `seed` and `episode_id`, plus the task and a step limit). */
export const ResetDataSchema = z
  .object({
    seed: z.number().int().nonnegative().optional(),
    episode_id: z.string().min(1).max(255).optional(),
    task_id: z.string().min(1).max(255).optional(),
    max_steps: z.number().int().positive().max(100_000).optional(),
  })
  .strict();
export type ResetData = z.infer<typeof ResetDataSchema>;

/** A saved state as it travels: what `snapshot` answered, sent back unchanged to `restore`. */
export const WireSnapshotSchema = z.object({
  family: z.string(),
  taskId: z.string(),
  seed: z.number().int(),
  state: z.unknown(),
  /** The step count and episode of the saved state (restored with it). */
  step_count: z.number().int().nonnegative(),
});
export type WireSnapshot = z.infer<typeof WireSnapshotSchema>;

const sessionRef = { session_id: z.string().min(1).max(255).optional() };

/** One incoming WebSocket message. `data` of `step` is the action itself (as in OpenEnv). */
export const WsMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("reset"), data: z.unknown().optional(), ...sessionRef }).strict(),
  z.object({ type: z.literal("step"), data: z.unknown(), ...sessionRef }).strict(),
  z.object({ type: z.literal("state"), ...sessionRef }).strict(),
  z.object({ type: z.literal("close"), ...sessionRef }).strict(),
  z.object({ type: z.literal("snapshot"), ...sessionRef }).strict(),
  z
    .object({ type: z.literal("restore"), data: z.object({ snapshot: z.unknown() }).strict(), ...sessionRef })
    .strict(),
  z.object({ type: z.literal("fingerprint"), ...sessionRef }).strict(),
]);
export type WsMessage = z.infer<typeof WsMessageSchema>;
export const WS_MESSAGE_TYPES = WsMessageSchema.options.map((o) => o.shape.type.value);

/** HTTP bodies: `session_id` names the session (a reset without one opens a new session). */
export const HttpResetBodySchema = ResetDataSchema.extend(sessionRef).strict();
export const HttpStepBodySchema = z
  .object({
    action: z.unknown(),
    session_id: z.string().min(1).max(255),
    timeout_s: z.number().positive().optional(),
    request_id: z.string().max(255).optional(),
  })
  .strict();
export const HttpSessionBodySchema = z.object({ session_id: z.string().min(1).max(255) }).strict();
export const HttpRestoreBodySchema = z
  .object({ session_id: z.string().min(1).max(255), snapshot: z.unknown() })
  .strict();

/** The verifier's verdict, sent with the observation that ends an episode. */
export const WireOutcomeSchema = z.object({
  success: z.boolean(),
  reward: z.number(),
  reason: z.string(),
});

export const ObservationMetadataSchema = z.object({
  session_id: z.string(),
  episode_id: z.string(),
  task_id: z.string(),
  step_count: z.number().int().nonnegative(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: z.record(z.string(), z.unknown()),
  outcome: WireOutcomeSchema.optional(),
});

/** The observation on the wire: Rehearsal's observation (screenshots without bytes) plus OpenEnv's fields. */
export const WireObservationSchema = ObservationSchema.omit({ screenshot: true }).extend({
  screenshot: z.object({ mime: z.string(), sha256: z.string() }).optional(),
  done: z.boolean(),
  reward: z.number().nullable(),
  metadata: ObservationMetadataSchema,
});
export type WireObservation = z.infer<typeof WireObservationSchema>;

export const ObservationPayloadSchema = z.object({
  observation: WireObservationSchema,
  reward: z.number().nullable(),
  done: z.boolean(),
  metadata: ObservationMetadataSchema,
});
export type ObservationPayload = z.infer<typeof ObservationPayloadSchema>;

export const StateSchema = z.object({
  session_id: z.string(),
  episode_id: z.string().nullable(),
  step_count: z.number().int().nonnegative(),
  task_id: z.string().nullable(),
  seed: z.number().int().nullable(),
  done: z.boolean(),
  capabilities: z.object({ snapshot: z.boolean(), replay: z.boolean(), deterministic: z.boolean() }),
});
export type SessionState = z.infer<typeof StateSchema>;

/** The JSON schemas the server publishes (`GET /schema`), generated from the zod contracts. */
export function wireJsonSchemas(): Record<string, unknown> {
  const io = { io: "input" as const, unrepresentable: "any" as const };
  return {
    action: z.toJSONSchema(ActionSchema, io),
    observation: z.toJSONSchema(ObservationPayloadSchema, { unrepresentable: "any" }),
    state: z.toJSONSchema(StateSchema),
    reset: z.toJSONSchema(HttpResetBodySchema, io),
    ws_message: z.toJSONSchema(WsMessageSchema, io),
  };
}
