import { z } from "zod";
import { NoiseStateSchema } from "./noise-state.ts";

/** What a web snapshot's `state` holds (opaque to callers; validated on restore). */
export const SnapshotStateSchema = z.object({
  /** Page path on the task server (snapshots are only taken on the entry page). */
  url: z.string(),
  /** The page's own `rehearsalSaveState()` value. */
  page: z.unknown(),
  /** The page agent's part: element ids, form state, focus, selection, scroll, PRNG and WOB globals. */
  extra: z.unknown(),
  steps: z.number().int().nonnegative(),
  ended: z.enum(["page", "done", "fail", "truncated"]).nullable(),
  blocked: z.number().int().nonnegative(),
  /** Perturbations in effect (noise widgets, dialog, tabs, viewport), when any were applied. */
  noise: NoiseStateSchema.optional(),
  /** The state's fingerprint when it was saved: an in-page restore must reach it (else a fresh page is used). */
  fingerprint: z.string().optional(),
  /** The digests of that fingerprint's parts (fingerprint-diff.ts): what an in-page restore missed. */
  fingerprintParts: z.record(z.string(), z.string()).optional(),
});
export type SnapshotState = z.infer<typeof SnapshotStateSchema>;
