import { canonicalJson, type StateRecord } from "../../core/index.ts";
import { applyEffects, sameState } from "./evidence.ts";
import { fieldPattern } from "./invariants.ts";
import type { Attribution, Condition, Effect, Rule, RuleStatus, WorldbookOptions } from "./schema.ts";

/** A transition as the rule engine sees it: its action group, states and candidate effects. */
export interface Transition {
  id: string;
  key: string;
  action: Record<string, unknown>;
  before: StateRecord;
  after: StateRecord;
  effects: Effect[];
}

/** Observed numeric ranges by field pattern (see `fieldPattern`). */
export type Ranges = ReadonlyMap<string, { min: number; max: number }>;

/** The effects with the observed range of each incremented/decremented path attached as bounds. */
function bounded(effects: ReadonlyArray<Effect>, ranges: Ranges): Effect[] {
  return effects.map((e) => {
    const range = e.op === "increment" || e.op === "decrement" ? ranges.get(fieldPattern(e.path)) : undefined;
    return range ? { ...e, bounds: { min: range.min, max: range.max } } : e;
  });
}

/**
 * The outcomes a group can have: each distinct non-empty effect set seen, most frequent first, plus
 * "no change" when some transition stayed put where no other outcome's bounds explain it.
 */
function candidateOutcomes(group: ReadonlyArray<Transition>, ranges: Ranges): Effect[][] {
  const counts = new Map<string, { effects: Effect[]; count: number }>();
  for (const t of group) {
    if (t.effects.length === 0) continue;
    const effects = bounded(t.effects, ranges);
    const key = canonicalJson(effects);
    const entry = counts.get(key) ?? { effects, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const ordered = [...counts.entries()]
    .sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, v]) => v.effects);
  const unexplainedStay = group.some(
    (t) => t.effects.length === 0 && !ordered.some((o) => sameState(applyEffects(t.before, o), t.before)),
  );
  return unexplainedStay ? [...ordered, []] : ordered;
}

/** Which outcome explains `t`: its index, or why none can be credited from this state. */
function attribute(
  t: Transition,
  outcomes: ReadonlyArray<Effect[]>,
): { outcome: number } | { withheld: string } | { counter: true } {
  const predicted = outcomes.map((o) => canonicalJson(applyEffects(t.before, o)));
  for (let i = 0; i < predicted.length; i++) {
    const j = predicted.indexOf(predicted[i] as string, i + 1);
    if (j >= 0) {
      return {
        withheld: `outcomes ${i} and ${j} give the same next state from this state, so it cannot tell them apart; every transition from such a state is left out of the counts`,
      };
    }
  }
  const got = canonicalJson(t.after);
  const index = predicted.indexOf(got);
  return index >= 0 ? { outcome: index } : { counter: true };
}

function ruleId(action: Record<string, unknown>, taken: Set<string>): string {
  const parts = [String(action.type ?? "action")];
  for (const name of Object.keys(action).sort()) {
    if (name === "type") continue;
    const v = action[name];
    parts.push(typeof v === "object" && v !== null ? canonicalJson(v) : String(v));
  }
  const base = parts.join(":");
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
  taken.add(id);
  return id;
}

function statusOf(support: number, counterexamples: number, options: WorldbookOptions): RuleStatus {
  if (counterexamples > 0) return "conflicted";
  return support < options.minSupport ? "tentative" : "supported";
}

/**
 * One rule per action group (type and argument values). Its outcomes are the effect sets the group's
 * transitions showed, effects on numbers as relative increments so that evidence pools across states;
 * counts come only from states where the outcomes give distinct next states (others are withheld, so the
 * estimate is not biased by which outcome a boundary hides).
 */
export function induceRules(
  transitions: ReadonlyArray<Transition>,
  ranges: Ranges,
  options: WorldbookOptions,
  taskOf: (transitionId: string) => string = () => "",
): { rules: Rule[]; attributions: Map<string, Attribution> } {
  const groups = new Map<string, Transition[]>();
  for (const t of transitions) {
    const list = groups.get(t.key) ?? [];
    list.push(t);
    groups.set(t.key, list);
  }
  const rules: Rule[] = [];
  const attributions = new Map<string, Attribution>();
  const taken = new Set<string>();
  for (const key of [...groups.keys()].sort()) {
    const group = groups.get(key) as Transition[];
    const id = ruleId((group[0] as Transition).action, taken);
    const outcomes = candidateOutcomes(group, ranges);
    const counts = outcomes.map(() => 0);
    const evidence: string[] = [];
    const credited: Array<[string, number]> = [];
    let counterexamples = 0;
    let withheld = 0;
    for (const t of group) {
      const a = outcomes.length === 0 ? { outcome: -1 } : attribute(t, outcomes);
      if ("withheld" in a) {
        withheld++;
        attributions.set(t.id, { status: "withheld", rule: id, reason: a.withheld });
      } else if ("counter" in a || a.outcome < 0) {
        counterexamples++;
        attributions.set(t.id, { status: "counterexample", rule: id });
      } else {
        counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
        if (evidence.length < options.maxEvidencePerRule) evidence.push(t.id);
        credited.push([t.id, a.outcome]);
      }
    }
    const support = counts.reduce((s, c) => s + c, 0);
    const kept = outcomes
      .map((effects, i) => ({
        effects,
        count: counts[i] ?? 0,
        probability: support ? (counts[i] ?? 0) / support : 0,
      }))
      .filter((o) => o.count > 0 || support === 0);
    // Outcome numbers as the rule lists them (outcomes never credited are dropped).
    const renumber = new Map(kept.map((o, i) => [outcomes.indexOf(o.effects), i]));
    for (const [tid, o] of credited) {
      attributions.set(tid, { status: "attributed", rule: id, outcome: renumber.get(o) ?? o });
    }
    const paths = [...new Set(outcomes.flat().map((e) => e.path))].sort();
    const conditions: Condition[] = paths.map((path) => ({ path, op: "exists" }));
    rules.push({
      id,
      action: (group[0] as Transition).action,
      params: [],
      scope: { tasks: [...new Set(group.map((t) => taskOf(t.id)))].filter((t) => t !== "").sort() },
      conditions,
      outcomes: kept.length > 0 ? kept : [{ effects: [], count: 0, probability: 0 }],
      stochastic: kept.length > 1,
      support,
      counterexamples,
      withheld,
      confidence: support / (support + counterexamples + 1),
      status: statusOf(support, counterexamples, options),
      evidence,
    });
  }
  return { rules, attributions };
}
