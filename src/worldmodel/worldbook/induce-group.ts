import { canonicalJson, type StateRecord, type StateValue } from "../../core/index.ts";
import type { Ranges } from "./bounds.ts";
import { resolveEffects } from "./conditions.ts";
import { applyEffects } from "./evidence.ts";
import { fieldPattern } from "./invariants.ts";
import type { Condition, Effect, Rule, RuleStatus, WorldbookOptions } from "./schema.ts";
import { separatingSides } from "./separate.ts";

/** A transition as the rule engine sees it: its action group, states and candidate effects. */
export interface Transition {
  id: string;
  key: string;
  action: Record<string, unknown>;
  before: StateRecord;
  after: StateRecord;
  effects: Effect[];
}

/** A transition inside one rule group: its effects and before-state in the group's (maybe lifted) terms. */
export interface Member {
  t: Transition;
  effects: Effect[];
  view: StateRecord;
}

/** The effects with the observed range of each incremented/decremented path attached as bounds. */
export function bounded(effects: ReadonlyArray<Effect>, ranges: Ranges): Effect[] {
  return effects.map((e) => {
    const range = e.op === "increment" || e.op === "decrement" ? ranges.get(fieldPattern(e.path)) : undefined;
    return range ? { ...e, bounds: { ...range } } : e;
  });
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A key of `state` relative to the member's before-state `base`: the paths where it differs (in
 * canonical JSON) with their values. Two states derived from one base have equal keys exactly when
 * their canonical JSON is equal, without writing out every path of either.
 */
function keyFrom(base: StateRecord, state: StateRecord): string {
  const changed: string[] = [];
  for (const path of Object.keys(state)) {
    const v = state[path];
    if (v !== undefined && differs(v, base[path])) changed.push(path);
  }
  for (const path of Object.keys(base))
    if (base[path] !== undefined && state[path] === undefined) changed.push(path);
  return changedKey(state, changed);
}

/** `keyFrom` when only `paths` can differ (`state` is `base` with effects on them applied). */
function keyOnPaths(base: StateRecord, state: StateRecord, paths: ReadonlyArray<string>): string {
  const changed: string[] = [];
  for (const path of new Set(paths)) {
    const v = state[path];
    if (v === undefined ? base[path] !== undefined : differs(v, base[path])) changed.push(path);
  }
  return changedKey(state, changed);
}

/** Whether a defined value differs from the base's (in canonical JSON; absent in the base: yes). */
function differs(v: StateValue, b: StateValue | undefined): boolean {
  return v !== b && (b === undefined || canonicalJson(v) !== canonicalJson(b));
}

/** The key of the `changed` paths with their values in `state` (a removed path alone). */
function changedKey(state: StateRecord, changed: string[]): string {
  if (changed.length === 0) return "[]";
  changed.sort();
  return JSON.stringify(
    changed.map((p) => {
      const v = state[p];
      return v === undefined ? [p] : [p, canonicalJson(v)];
    }),
  );
}

/**
 * The next state an outcome predicts for a member (`keyFrom` its before-state, read on the paths the
 * resolved effects touch), or a marker when it cannot resolve.
 */
function predicted(m: Member, effects: ReadonlyArray<Effect>, i: number): string {
  const resolved = resolveEffects(effects, m.t.before, m.t.action);
  if (resolved === undefined) return `!unresolved${i}`;
  return keyOnPaths(
    m.t.before,
    applyEffects(m.t.before, resolved),
    resolved.map((e) => e.path),
  );
}

/**
 * The outcomes a group can have: each distinct non-empty effect set seen, most frequent first, plus
 * "no change" when some transition stayed put where no other outcome explains it.
 */
function candidateOutcomes(members: ReadonlyArray<Member>): Effect[][] {
  const counts = new Map<string, { effects: Effect[]; count: number }>();
  for (const m of members) {
    if (m.effects.length === 0) continue;
    const key = canonicalJson(m.effects);
    const entry = counts.get(key) ?? { effects: m.effects, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const ordered = [...counts.entries()]
    .sort((a, b) => b[1].count - a[1].count || compareKeys(a[0], b[0]))
    .map(([, v]) => v.effects);
  const unexplainedStay = members.some(
    (m) => m.effects.length === 0 && !ordered.some((o, i) => predicted(m, o, i) === "[]"),
  );
  return unexplainedStay ? [...ordered, []] : ordered;
}

export type Verdict = { outcome: number } | { withheld: string } | { counter: true };

/** Which outcome explains a member: its index, or why none can be credited from this state. */
function attribute(got: string, next: ReadonlyArray<string>): Verdict {
  for (let i = 0; i < next.length; i++) {
    const j = next.indexOf(next[i] as string, i + 1);
    if (j >= 0) {
      return {
        withheld: `outcomes ${i} and ${j} give the same next state from this state, so it cannot tell them apart; every transition from such a state is left out of the counts`,
      };
    }
  }
  const index = next.indexOf(got);
  return index >= 0 ? { outcome: index } : { counter: true };
}

/** The outcomes that explain a member (all of them, for the split search). */
function explaining(got: string, next: ReadonlyArray<string>): number[] {
  return next.flatMap((n, i) => (n === got ? [i] : []));
}

function renderValue(v: unknown): string {
  return typeof v === "object" && v !== null ? canonicalJson(v) : String(v);
}

function baseId(action: Record<string, unknown>, params: ReadonlyArray<string>): string {
  const parts = [String(action.type ?? "action")];
  for (const name of Object.keys(action).sort()) {
    if (name === "type") continue;
    parts.push(params.includes(name) ? `{${name}}` : renderValue(action[name]));
  }
  return parts.join(":");
}

function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
  taken.add(id);
  return id;
}

function statusOf(support: number, counterexamples: number, options: WorldbookOptions): RuleStatus {
  if (counterexamples > 0) return "conflicted";
  return support < options.minSupport ? "tentative" : "supported";
}

/** What induction needs beside the members. */
export interface Context {
  options: WorldbookOptions;
  taskOf: (transitionId: string) => string;
  taken: Set<string>;
}

/** A group's rules (one, or one per side of a separating test) and how each member was credited. */
export interface GroupResult {
  rules: Rule[];
  verdicts: Array<{ rule: string; verdict: Verdict }>;
}

function makeRule(
  id: string,
  action: Record<string, unknown>,
  params: string[],
  members: ReadonlyArray<Member>,
  conditions: Condition[],
  outcomes: Rule["outcomes"],
  counts: { support: number; counterexamples: number; withheld: number; evidence: string[] },
  ctx: Context,
): Rule {
  return {
    id,
    action,
    params,
    scope: { tasks: [...new Set(members.map((m) => ctx.taskOf(m.t.id)))].filter((t) => t !== "").sort() },
    conditions,
    outcomes,
    stochastic: outcomes.length > 1,
    support: counts.support,
    counterexamples: counts.counterexamples,
    withheld: counts.withheld,
    confidence: counts.support / (counts.support + counts.counterexamples + 1),
    status: statusOf(counts.support, counts.counterexamples, ctx.options),
    evidence: counts.evidence,
  };
}

function existsConditions(outcomes: ReadonlyArray<Effect[]>): Condition[] {
  return [...new Set(outcomes.flat().map((e) => e.path))].sort().map((path) => ({ path, op: "exists" }));
}

function conditionTag(c: Condition): string {
  return `?${c.path}${c.op === "eq" ? "=" : c.op === "ne" ? "!=" : `:${c.op}:`}${renderValue(c.value)}`;
}

/**
 * The rules of one group. Several outcomes that a before-state test separates exactly become one
 * deterministic rule per side; otherwise one rule with the outcome distribution, whose counts come
 * only from states where the outcomes give distinct next states (others are withheld, so the estimate
 * is not biased by which outcome a boundary hides).
 */
export function induceGroup(
  members: ReadonlyArray<Member>,
  action: Record<string, unknown>,
  params: string[],
  ctx: Context,
): GroupResult {
  const outcomes = candidateOutcomes(members);
  const base = baseId(action, params);
  const next = members.map((m) => outcomes.map((o, i) => predicted(m, o, i)));
  const got = members.map((m) => keyFrom(m.t.before, m.t.after));
  if (outcomes.length > 1) {
    const changed = new Set(outcomes.flat().map((e) => e.path));
    const sides = separatingSides(
      members.map((m) => m.view),
      members.map((_, i) => explaining(got[i] as string, next[i] as string[])),
      changed,
    );
    if (sides) {
      const verdicts: GroupResult["verdicts"] = members.map(() => ({ rule: "", verdict: { counter: true } }));
      const rules = sides.map((side) => {
        const effects = outcomes[side.outcome] as Effect[];
        const id = uniqueId(`${base}${conditionTag(side.condition)}`, ctx.taken);
        const sideMembers = side.members.map((i) => members[i] as Member);
        for (const i of side.members) verdicts[i] = { rule: id, verdict: { outcome: 0 } };
        const evidence = sideMembers.slice(0, ctx.options.maxEvidencePerRule).map((m) => m.t.id);
        const n = sideMembers.length;
        return makeRule(
          id,
          action,
          params,
          sideMembers,
          [...existsConditions([effects]), side.condition],
          [{ effects, count: n, probability: 1 }],
          { support: n, counterexamples: 0, withheld: 0, evidence },
          ctx,
        );
      });
      return { rules, verdicts };
    }
  }
  const id = uniqueId(base, ctx.taken);
  const counts = outcomes.map(() => 0);
  const verdicts = members.map((_m, i) => {
    const verdict: Verdict =
      outcomes.length === 0 ? { counter: true } : attribute(got[i] as string, next[i] as string[]);
    if ("outcome" in verdict) counts[verdict.outcome] = (counts[verdict.outcome] ?? 0) + 1;
    return { rule: id, verdict };
  });
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
  for (const v of verdicts) {
    if ("outcome" in v.verdict) v.verdict = { outcome: renumber.get(v.verdict.outcome) ?? v.verdict.outcome };
  }
  const credited = members.filter((_, i) => "outcome" in (verdicts[i] as { verdict: Verdict }).verdict);
  const rule = makeRule(
    id,
    action,
    params,
    members,
    existsConditions(outcomes),
    kept.length > 0 ? kept : [{ effects: [], count: 0, probability: 0 }],
    {
      support,
      counterexamples: verdicts.filter((v) => "counter" in v.verdict).length,
      withheld: verdicts.filter((v) => "withheld" in v.verdict).length,
      evidence: credited.slice(0, ctx.options.maxEvidencePerRule).map((m) => m.t.id),
    },
    ctx,
  );
  return { rules: [rule], verdicts };
}

export function groupBy<T>(items: ReadonlyArray<T>, key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k) ?? [];
    list.push(item);
    out.set(k, list);
  }
  return out;
}
