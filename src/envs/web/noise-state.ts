import { z } from "zod";

/**
 * The plain-data state of one episode's perturbations (what snapshots carry and fingerprints hash),
 * and what the environment lends the browser side of them (perturbations.ts, noise-tabs.ts).
 */

export const TabStateSchema = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  typed: z.number().int().nonnegative(),
  charsPerStep: z.number().int().positive(),
  returnAfter: z.number().int().positive().nullable(),
  age: z.number().int().nonnegative(),
  focus: z.boolean(),
  endedBy: z.string().nullable(),
});
export type TabState = z.infer<typeof TabStateSchema>;

export const DialogStateSchema = z.object({
  id: z.string(),
  type: z.enum(["alert", "confirm", "prompt"]),
  message: z.string(),
  defaultValue: z.string().nullable(),
  typed: z.string().nullable(),
});
export type DialogState = z.infer<typeof DialogStateSchema>;

export const NoiseStateSchema = z.object({
  /** page/noise.js state (widgets), null when no widget was ever added. */
  layer: z.unknown().nullable(),
  dialog: DialogStateSchema.nullable(),
  tabs: z.array(TabStateSchema),
  /** 0: the task page; i: tabs[i - 1]. */
  active: z.number().int().nonnegative(),
  viewport: z
    .object({ id: z.string(), width: z.number(), height: z.number(), left: z.number().int() })
    .nullable(),
  /** Perturbations that end as they happen (scroll jumps), and ended dialogs / viewports. */
  ended: z.array(z.object({ id: z.string(), endedBy: z.string() })),
  /**
   * Snapshots only: what the agent did inside each noise tab (the page agent's `saveExtra()`: form
   * values, focus, selection, scroll), null for a closed tab. Fingerprints read the active tab's view.
   */
  tabPages: z.array(z.unknown()).optional(),
});
export type NoiseState = z.infer<typeof NoiseStateSchema>;

/** What the environment lends the layer: guarded evaluation in the task page, its viewport. */
export interface NoiseHost {
  evalTask<T>(expression: string): Promise<T>;
  defaultViewport: { width: number; height: number };
  timeoutMs: number;
}
