import { z } from "zod";

/** Per-action statistics of a state entry (statistical writer). Rates carry 95 % Wilson intervals. */
export const ActionKnowledgeSchema = z.object({
  action: z.string(),
  /** Continuations whose first step took this action. */
  n: z.number().int().nonnegative(),
  deaths: z.number().int().nonnegative(),
  goals: z.number().int().nonnegative(),
  /** First steps whose slip outcome is known, and of those, how many moved as intended. */
  slipKnown: z.number().int().nonnegative(),
  moved: z.number().int().nonnegative(),
  deathRate: z.number(),
  deathLow: z.number(),
  deathHigh: z.number(),
  goalRate: z.number(),
  goalLow: z.number(),
  goalHigh: z.number(),
  moveRate: z.number(),
  moveLow: z.number(),
  moveHigh: z.number(),
  /** Monte Carlo: number of continuation returns and their mean. */
  mcN: z.number().int().nonnegative(),
  mcMean: z.number(),
  /** TD: number of one-step targets r + γ·V(s') and their running mean. */
  tdN: z.number().int().nonnegative(),
  tdMean: z.number(),
  /** Action value: the count-weighted mean of the MC and TD estimates; null when neither has data. */
  q: z.number().nullable(),
});
export type ActionKnowledge = z.infer<typeof ActionKnowledgeSchema>;

/** `fields` of a state-keyed entry. */
export const StateKnowledgeFieldsSchema = z.object({
  kind: z.literal("state"),
  actions: z.record(z.string(), ActionKnowledgeSchema),
  /** max over actions with a value; null when none has one. */
  value: z.number().nullable(),
  bestAction: z.string().nullable(),
  visits: z.number().int().nonnegative(),
});
export type StateKnowledgeFields = z.infer<typeof StateKnowledgeFieldsSchema>;

/** Per-action outcome counts of a path-keyed entry (trajectory-reflection baseline). */
export const PathActionKnowledgeSchema = z.object({
  action: z.string(),
  n: z.number().int().nonnegative(),
  successes: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  successRate: z.number(),
  successLow: z.number(),
  successHigh: z.number(),
  /** Mean episode return of the episodes that took this action at this step. */
  q: z.number().nullable(),
});
export type PathActionKnowledge = z.infer<typeof PathActionKnowledgeSchema>;

/** `fields` of a path-keyed entry: knowledge about "the action at step t", whatever the state was. */
export const PathKnowledgeFieldsSchema = z.object({
  kind: z.literal("path"),
  step: z.number().int().nonnegative(),
  actions: z.record(z.string(), PathActionKnowledgeSchema),
});
export type PathKnowledgeFields = z.infer<typeof PathKnowledgeFieldsSchema>;

/** Action values a policy can read from either kind of entry (null where the entry has none). */
export function actionValuesOf(fields: unknown): Record<string, { q: number | null; n: number }> | undefined {
  const state = StateKnowledgeFieldsSchema.safeParse(fields);
  if (state.success) {
    const out: Record<string, { q: number | null; n: number }> = {};
    for (const [k, a] of Object.entries(state.data.actions)) out[k] = { q: a.q, n: a.mcN + a.tdN };
    return out;
  }
  const path = PathKnowledgeFieldsSchema.safeParse(fields);
  if (path.success) {
    const out: Record<string, { q: number | null; n: number }> = {};
    for (const [k, a] of Object.entries(path.data.actions)) out[k] = { q: a.q, n: a.n };
    return out;
  }
  return undefined;
}
