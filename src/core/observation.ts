import { z } from "zod";
import { ActionSchema } from "./action.ts";

/** A large binary (screenshot) by content hash; `bytes` is present in memory and dropped when stored. */
export const ImageSchema = z.object({
  mime: z.enum(["image/png", "image/jpeg"]),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  bytes: z.instanceof(Uint8Array).optional(),
});
export type Image = z.infer<typeof ImageSchema>;

/** Why an action could not apply: data for the policy, never an exception. */
export const ActionErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
});
export type ActionError = z.infer<typeof ActionErrorSchema>;

export const ObservationSchema = z.object({
  /** The main text rendering shown to a text policy. */
  text: z.string(),
  instruction: z.string().optional(),
  /** Accessibility-tree text with stable element ids (web). */
  axtree: z.string().optional(),
  url: z.string().optional(),
  title: z.string().optional(),
  focused: z.string().optional(),
  screenshot: ImageSchema.optional(),
  /** Structural state key (SKL): equal keys mean the same environment state. */
  stateKey: z.string().optional(),
  /** The admissible actions where the environment can list them (grid worlds, board games). */
  legalActions: z.array(ActionSchema).optional(),
  /** Set when the last action could not apply. */
  error: ActionErrorSchema.optional(),
  /** Environment-specific structured data (coordinates, board FEN, ...). */
  data: z.record(z.string(), z.unknown()).optional(),
});
export type Observation = z.infer<typeof ObservationSchema>;
