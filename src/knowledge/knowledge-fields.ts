import { z } from "zod";

/** A count of events (continuations, outcomes, visits). */
export const Count = z.number().int().nonnegative();

/** `<name>Rate`, `<name>Low`, `<name>High`: a proportion with its 95 % Wilson interval. */
function rateFields<N extends string>(name: N) {
  return {
    [`${name}Rate`]: z.number(),
    [`${name}Low`]: z.number(),
    [`${name}High`]: z.number(),
  } as Record<`${N}Rate` | `${N}Low` | `${N}High`, z.ZodNumber>;
}

/** Per-action statistics of a state entry (statistical writer). Rates carry 95 % Wilson intervals. */
export const ActionKnowledgeSchema = z.object({
  action: z.string(),
  /** Continuations whose first step took this action. */
  n: Count,
  deaths: Count,
  goals: Count,
  /** First steps whose slip outcome is known, and of those, how many moved as intended. */
  slipKnown: Count,
  moved: Count,
  ...rateFields("death"),
  ...rateFields("goal"),
  ...rateFields("move"),
  /** Monte Carlo: number of continuation returns and their mean. */
  mcN: Count,
  mcMean: z.number(),
  /** TD: number of one-step targets r + γ·V(s') and their running mean. */
  tdN: Count,
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
  visits: Count,
});
export type StateKnowledgeFields = z.infer<typeof StateKnowledgeFieldsSchema>;

/** Per-action outcome counts of a path-keyed entry (trajectory-reflection baseline). */
export const PathActionKnowledgeSchema = z.object({
  action: z.string(),
  n: Count,
  successes: Count,
  failures: Count,
  ...rateFields("success"),
  /** Mean episode return of the episodes that took this action at this step. */
  q: z.number().nullable(),
});
export type PathActionKnowledge = z.infer<typeof PathActionKnowledgeSchema>;

/** `fields` of a path-keyed entry: knowledge about "the action at step t", whatever the state was. */
export const PathKnowledgeFieldsSchema = z.object({
  kind: z.literal("path"),
  step: Count,
  actions: z.record(z.string(), PathActionKnowledgeSchema),
});
export type PathKnowledgeFields = z.infer<typeof PathKnowledgeFieldsSchema>;

/** Per action, its value and the evidence behind it. */
export type ActionValues = Record<string, { q: number | null; n: number }>;

function valuesOf<A>(
  actions: Record<string, A>,
  read: (a: A) => { q: number | null; n: number },
): ActionValues {
  return Object.fromEntries(Object.entries(actions).map(([k, a]) => [k, read(a)]));
}

/** Action values a policy can read from either kind of entry (null where the entry has none). */
export function actionValuesOf(fields: unknown): ActionValues | undefined {
  const state = StateKnowledgeFieldsSchema.safeParse(fields);
  if (state.success) return valuesOf(state.data.actions, (a) => ({ q: a.q, n: a.mcN + a.tdN }));
  const path = PathKnowledgeFieldsSchema.safeParse(fields);
  if (path.success) return valuesOf(path.data.actions, (a) => ({ q: a.q, n: a.n }));
  return undefined;
}
