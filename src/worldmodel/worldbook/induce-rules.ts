import { canonicalJson } from "../../core/index.ts";
import type { Ranges } from "./bounds.ts";
import { bounded, type Context, groupBy, induceGroup, type Transition } from "./induce-group.ts";
import { liftableArgs, liftEffects, liftedView } from "./lift.ts";
import type { Attribution, Effect, Rule, WorldbookOptions } from "./schema.ts";

export type { Ranges } from "./bounds.ts";
export type { Transition } from "./induce-group.ts";

/**
 * Rules lifted over action arguments, for each action type (and argument names): effects lifted (see
 * `liftEffects`), grouped by the values of the arguments they do not use. A lifted group is kept when it
 * covers at least two distinct values of its parameters, has no more counterexamples than the exact rules
 * of the same transitions, and is deterministic wherever those exact rules are.
 */
function liftedRules(
  transitions: ReadonlyArray<Transition>,
  exact: ReadonlyMap<string, Rule>,
  ranges: Ranges,
  ctx: Context,
): Rule[] {
  const out: Rule[] = [];
  const byType = groupBy(transitions, (t) => canonicalJson([t.action.type, Object.keys(t.action).sort()]));
  for (const typeKey of [...byType.keys()].sort()) {
    const group = byType.get(typeKey) as Transition[];
    const lifted = liftEffects(
      group.map((t) => ({ effects: bounded(t.effects, ranges), before: t.before, action: t.action })),
    );
    const params = [...new Set(lifted.flatMap((l) => [...l.used]))].sort();
    if (params.length === 0) continue;
    const free = (t: Transition) => liftableArgs(t.action).some(([k]) => params.includes(k));
    const sub = groupBy(
      group
        .map((t, i) => ({ t, effects: (lifted[i] as { effects: Effect[] }).effects }))
        .filter((x) => free(x.t)),
      ({ t }) =>
        canonicalJson(Object.fromEntries(Object.entries(t.action).filter(([k]) => !params.includes(k)))),
    );
    for (const subKey of [...sub.keys()].sort()) {
      const items = sub.get(subKey) as Array<{ t: Transition; effects: Effect[] }>;
      const distinct = new Set(items.map(({ t }) => canonicalJson(params.map((p) => t.action[p] ?? null))));
      if (distinct.size < 2) continue;
      const action = Object.fromEntries(
        Object.entries((items[0] as { t: Transition }).t.action).filter(([k]) => !params.includes(k)),
      );
      const members = items.map(({ t, effects }) => ({ t, effects, view: liftedView(t.before, t.action) }));
      const trial = new Set(ctx.taken);
      const result = induceGroup(members, action, params, { ...ctx, taken: trial });
      const exactRules = [...new Set(items.map(({ t }) => t.id))].map((id) => exact.get(id) as Rule);
      const exactCounter = [...new Set(exactRules)].reduce((s, r) => s + r.counterexamples, 0);
      const liftedCounter = result.rules.reduce((s, r) => s + r.counterexamples, 0);
      const exactStochastic = exactRules.some((r) => r.stochastic);
      if (liftedCounter > exactCounter) continue;
      if (!exactStochastic && result.rules.some((r) => r.stochastic)) continue;
      // A lifted rule whose every transition was withheld (its outcomes cannot be told apart) explains
      // nothing it could count: it is left out rather than listed with support 0.
      const counted = result.rules.filter((r) => r.support > 0);
      for (const r of counted) ctx.taken.add(r.id);
      out.push(...counted);
    }
  }
  return out;
}

/**
 * The worldbook's rules. Per action group (type and argument values): one rule with the outcome
 * distribution, or one deterministic rule per side of a before-state test that separates the outcomes.
 * Effects on numbers are relative increments so that evidence pools across states. Then lifted rules
 * (`params`) over arguments whose values name the changed paths or the set values (see `liftedRules`);
 * each transition stays attributed to its exact-argument rule, and a lifted rule counts every transition
 * of its group in its own support/evidence.
 */
export function induceRules(
  transitions: ReadonlyArray<Transition>,
  ranges: Ranges,
  options: WorldbookOptions,
  taskOf: (transitionId: string) => string = () => "",
): { rules: Rule[]; attributions: Map<string, Attribution> } {
  const groups = groupBy(transitions, (t) => t.key);
  const rules: Rule[] = [];
  const attributions = new Map<string, Attribution>();
  const ctx: Context = { options, taskOf, taken: new Set() };
  const ruleOf = new Map<string, Rule>();
  for (const key of [...groups.keys()].sort()) {
    const group = groups.get(key) as Transition[];
    const members = group.map((t) => ({ t, effects: bounded(t.effects, ranges), view: t.before }));
    const result = induceGroup(members, (group[0] as Transition).action, [], ctx);
    rules.push(...result.rules);
    const byId = new Map(result.rules.map((r) => [r.id, r]));
    result.verdicts.forEach(({ rule, verdict }, i) => {
      const t = group[i] as Transition;
      ruleOf.set(t.id, byId.get(rule) ?? (result.rules[0] as Rule));
      const id = rule || (result.rules[0] as Rule).id;
      if ("withheld" in verdict)
        attributions.set(t.id, { status: "withheld", rule: id, reason: verdict.withheld });
      else if ("counter" in verdict) attributions.set(t.id, { status: "counterexample", rule: id });
      else attributions.set(t.id, { status: "attributed", rule: id, outcome: verdict.outcome });
    });
  }
  rules.push(...liftedRules(transitions, ruleOf, ranges, ctx));
  return { rules, attributions };
}
