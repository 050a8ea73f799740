import { UserError } from "../../core/index.ts";
import type { Condition, Effect, Evidence, Rule, RuleStatus, Worldbook } from "./schema.ts";

/** Pure formatting of a worldbook for people (`rehearsal worldbook show`) and its JSON counterpart. */

const json = (v: unknown): string => JSON.stringify(v);

export function formatCondition(c: Condition): string {
  return c.value === undefined ? `${c.path} ${c.op}` : `${c.path} ${c.op} ${json(c.value)}`;
}

export function formatEffect(e: Effect): string {
  const value = e.from ?? (e.value === undefined ? "" : json(e.value));
  const bounds = e.bounds ? ` [${e.bounds.min}..${e.bounds.max}]` : "";
  return `${e.op} ${e.path}${value === "" ? "" : ` ${value}`}${bounds}`;
}

/** `p=0.667 n=8: increment agent.row 1 [0..3]` per outcome; "no change" for an empty effect list. */
export function formatOutcomes(rule: Rule): string[] {
  return rule.outcomes.map((o) => {
    const effects = o.effects.length === 0 ? "no change" : o.effects.map(formatEffect).join("; ");
    return `p=${o.probability.toFixed(3)} n=${o.count}: ${effects}`;
  });
}

/** The action group as `type key=value ...`, lifted params as `key=*`. */
export function formatAction(rule: Rule): string {
  const { type, ...args } = rule.action;
  const parts = Object.keys(args)
    .sort()
    .map((k) => `${k}=${typeof args[k] === "string" ? args[k] : json(args[k])}`);
  return [String(type ?? "?"), ...parts, ...rule.params.map((p) => `${p}=*`)].join(" ");
}

export const RULE_COLUMNS = [
  "id",
  "action",
  "conditions",
  "outcomes",
  "support",
  "counter",
  "withheld",
  "confidence",
  "status",
  "scope",
] as const;

/** One table row per rule, in RULE_COLUMNS order. */
export function ruleRow(rule: Rule): string[] {
  return [
    rule.id,
    formatAction(rule),
    rule.conditions.map(formatCondition).join("\n") || "-",
    formatOutcomes(rule).join("\n"),
    String(rule.support),
    String(rule.counterexamples),
    String(rule.withheld),
    rule.confidence.toFixed(3),
    rule.status,
    rule.scope.tasks.join(",") || "-",
  ];
}

/** The rules, optionally only those of one status, in the worldbook's order. */
export function selectRules(wb: Worldbook, status?: RuleStatus): Rule[] {
  return status === undefined ? wb.rules : wb.rules.filter((r) => r.status === status);
}

export interface RuleDetail {
  rule: Rule;
  /** Evidence counted for the rule (attributed), with provenance. */
  supporting: Evidence[];
  counterexamples: Evidence[];
  withheld: Evidence[];
  /** LLM reviews of this rule, if the build made any. */
  reviews: NonNullable<Worldbook["reviews"]>["reviews"];
}

/** One rule with all the evidence the build attributed to, withheld from or counted against it. */
export function ruleDetail(wb: Worldbook, id: string): RuleDetail {
  const rule = wb.rules.find((r) => r.id === id);
  if (!rule)
    throw new UserError(
      "worldbook.unknown_rule",
      `worldbook show: no rule "${id}" in this worldbook. Fix: list the rule ids with 'rehearsal worldbook show DIR'`,
      { details: { rule: id } },
    );
  const mine = wb.evidence.filter((e) => e.attribution.rule === id);
  return {
    rule,
    supporting: mine.filter((e) => e.attribution.status === "attributed"),
    counterexamples: mine.filter((e) => e.attribution.status === "counterexample"),
    withheld: mine.filter((e) => e.attribution.status === "withheld"),
    reviews: (wb.reviews?.reviews ?? []).filter((r) => r.rule === id),
  };
}

function evidenceLine(e: Evidence): string {
  const p = e.provenance;
  const where = `${e.id} (episode ${p.episodeId}, step ${p.step}, task ${p.taskId}, ${p.source})`;
  const facts = e.facts.map((f) => `${f.path}: ${json(f.before ?? null)} → ${json(f.after ?? null)}`);
  const outcome = `reward ${e.outcome.reward}${e.outcome.terminated ? ", terminated" : ""}`;
  const reason = e.attribution.status === "withheld" ? ` — withheld: ${e.attribution.reason}` : "";
  const outcomeNo = e.attribution.status === "attributed" ? ` [outcome ${e.attribution.outcome}]` : "";
  return `  ${where}${outcomeNo}: ${facts.join(", ") || "no change"}; ${outcome}${reason}`;
}

/** The full text of one rule: every field, then its evidence with provenance, counterexamples and reviews. */
export function describeRule(detail: RuleDetail, maxEvidence = 20): string[] {
  const { rule } = detail;
  const list = (title: string, items: Evidence[]) => [
    `${title} (${items.length}):`,
    ...items.slice(0, maxEvidence).map(evidenceLine),
    ...(items.length > maxEvidence ? [`  ... ${items.length - maxEvidence} more (--json lists all)`] : []),
  ];
  return [
    `rule ${rule.id}`,
    `action: ${formatAction(rule)}`,
    `params: ${rule.params.join(", ") || "-"}`,
    `scope: ${rule.scope.tasks.join(", ") || "-"}`,
    `status: ${rule.status}, confidence ${rule.confidence.toFixed(3)}, stochastic ${rule.stochastic}`,
    `support ${rule.support}, counterexamples ${rule.counterexamples}, withheld ${rule.withheld}`,
    "conditions:",
    ...(rule.conditions.length === 0 ? ["  -"] : rule.conditions.map((c) => `  ${formatCondition(c)}`)),
    "outcomes:",
    ...formatOutcomes(rule).map((o, i) => `  ${i}. ${o}`),
    ...list("supporting evidence", detail.supporting),
    ...list("counterexamples", detail.counterexamples),
    ...list("withheld", detail.withheld),
    ...detail.reviews.map(
      (r) =>
        `review (${r.status}): ${r.condition ? formatCondition(r.condition) : "no condition"} — ${r.reason}${r.note ? `; note: ${r.note}` : ""}`,
    ),
  ];
}

/** Rules counted by status, and how many carry an outcome distribution. */
export function ruleCounts(rules: ReadonlyArray<Rule>): Record<RuleStatus | "stochastic" | "total", number> {
  const count = (s: RuleStatus) => rules.filter((r) => r.status === s).length;
  return {
    total: rules.length,
    supported: count("supported"),
    tentative: count("tentative"),
    conflicted: count("conflicted"),
    stochastic: rules.filter((r) => r.stochastic).length,
  };
}
