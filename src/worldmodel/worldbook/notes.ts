import { canonicalJson, type Observation } from "../../core/index.ts";
import type { TraceStep } from "../trace.ts";
import type { Condition, Effect, ObservationContract, OutcomeRule, Rule } from "./schema.ts";

/** Collects, per family, the observation fields present in every observation it is fed. */
export class ContractCollector {
  private readonly byFamily = new Map<string, { fields: Set<string>; observations: number }>();

  private addOne(family: string, observation: Observation): void {
    const present = Object.keys(observation).filter(
      (k) => (observation as Record<string, unknown>)[k] !== undefined,
    );
    const entry = this.byFamily.get(family);
    if (!entry) {
      this.byFamily.set(family, { fields: new Set(present), observations: 1 });
      return;
    }
    entry.observations++;
    for (const f of [...entry.fields]) if (!present.includes(f)) entry.fields.delete(f);
  }

  /** A step's observation and next observation. */
  add(step: TraceStep): void {
    this.addOne(step.family, step.observation);
    this.addOne(step.family, step.nextObservation);
  }

  contracts(): ObservationContract[] {
    return [...this.byFamily.keys()].sort().map((family) => {
      const e = this.byFamily.get(family) as { fields: Set<string>; observations: number };
      return { family, fields: [...e.fields].sort(), observations: e.observations };
    });
  }
}

function show(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : canonicalJson(v ?? null);
}

const OP_WORDS: Record<Condition["op"], string> = {
  eq: "is",
  ne: "is not",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  exists: "exists",
  not_exists: "is absent",
  contains: "contains",
  in: "is one of",
};

function conditionText(c: Condition): string {
  return c.value === undefined
    ? `${c.path} ${OP_WORDS[c.op]}`
    : `${c.path} ${OP_WORDS[c.op]} ${show(c.value)}`;
}

function effectText(e: Effect): string {
  const value = e.from !== undefined ? `the value of ${e.from}` : show(e.value);
  switch (e.op) {
    case "set":
      return `${e.path} becomes ${value}`;
    case "delete":
      return `${e.path} is removed`;
    case "increment":
    case "decrement": {
      const by = `${e.op === "increment" ? "+" : "-"}${show(e.value)}`;
      const b = e.bounds;
      const max = b?.maxFrom
        ? `${b.maxFrom.path}${b.maxFrom.offset >= 0 ? "+" : ""}${b.maxFrom.offset}`
        : b?.max;
      return b ? `${e.path} ${by} (kept within ${b.min}..${max})` : `${e.path} ${by}`;
    }
    default:
      return `${e.op} ${value} to ${e.path}`;
  }
}

function actionText(rule: Rule): string {
  const args = Object.keys(rule.action)
    .filter((k) => k !== "type")
    .sort()
    .map((k) => `${k}=${show(rule.action[k])}`);
  const params = rule.params.map((p) => `${p}=any`);
  return [String(rule.action.type ?? "action"), ...args, ...params].join(" ");
}

/** One line per supported rule: when it applies and what it does (with probabilities), then consequences. */
export function ruleNotes(rules: ReadonlyArray<Rule>, outcomeRules: ReadonlyArray<OutcomeRule>): string[] {
  const lines: string[] = [];
  for (const rule of rules) {
    if (rule.status !== "supported") continue;
    const tests = rule.conditions.filter((c) => c.op !== "exists").map(conditionText);
    const when = tests.length > 0 ? ` when ${tests.join(" and ")}` : "";
    const outcomes = rule.outcomes.map((o) => {
      const what = o.effects.length > 0 ? o.effects.map(effectText).join(", ") : "nothing changes";
      return rule.stochastic ? `${what} (p=${o.probability.toFixed(3)})` : what;
    });
    lines.push(`${actionText(rule)}${when}: ${outcomes.join("; or ")} [${rule.id}, support ${rule.support}]`);
  }
  for (const o of outcomeRules) {
    const target =
      o.field === "state" ? `${o.path} becomes ${show(o.value)}` : `${o.field} is ${show(o.value)}`;
    lines.push(`after any step: ${target} when ${conditionText(o.when)} [support ${o.support}]`);
  }
  return lines;
}
