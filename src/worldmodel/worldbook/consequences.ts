import type { StateRecord } from "../../core/index.ts";
import { evaluateCondition } from "./conditions.ts";
import { withLookups } from "./evidence.ts";
import { mostCommonReward } from "./outcome-rules.ts";
import type { Worldbook } from "./schema.ts";

/** What `applyConsequences` reads of a worldbook. */
export type ConsequenceBook = Pick<Worldbook, "outcomeRules" | "evidence"> & {
  manifest: { options: { lookups: Worldbook["manifest"]["options"]["lookups"] } };
};

const defaultRewards = new WeakMap<object, number>();

/** The reward of a step no reward rule decides: the most common reward of the build evidence. */
function defaultReward(book: ConsequenceBook): number {
  let r = defaultRewards.get(book.evidence);
  if (r === undefined) {
    r = mostCommonReward(book.evidence.map((e) => e.outcome.reward));
    defaultRewards.set(book.evidence, r);
  }
  return r;
}

/**
 * What follows from a next state once a rule's effects are applied (pure): the derived paths the
 * consequence rules set (`field: "state"`; the first rule that holds for a path wins, a path no rule
 * decides keeps its value), then `terminated` (a terminated rule holds) and `reward` (the first reward
 * rule that holds, else the most common build reward), all read on the state with the book's lookups.
 */
export function applyConsequences(
  book: ConsequenceBook,
  after: StateRecord,
): { state: StateRecord; reward: number; terminated: boolean } {
  const lookups = book.manifest.options.lookups;
  const view = withLookups(after, lookups);
  const state: StateRecord = { ...after };
  const decided = new Set<string>();
  for (const rule of book.outcomeRules) {
    if (rule.field !== "state" || rule.path === undefined || decided.has(rule.path)) continue;
    if (evaluateCondition(rule.when, view, {}) === true) {
      state[rule.path] = rule.value;
      decided.add(rule.path);
    }
  }
  const next = withLookups(state, lookups);
  let terminated = false;
  let reward: number | undefined;
  for (const rule of book.outcomeRules) {
    if (rule.field === "state" || evaluateCondition(rule.when, next, {}) !== true) continue;
    if (rule.field === "terminated" && rule.value === true) terminated = true;
    if (rule.field === "reward" && reward === undefined && typeof rule.value === "number")
      reward = rule.value;
  }
  return { state, reward: reward ?? defaultReward(book), terminated };
}
