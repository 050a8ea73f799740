import { z } from "zod";
import type { StateRecord } from "../../core/index.ts";
import type { ChatClient } from "../../llm/client.ts";
import { extractJsonCandidates, fencedBlocks } from "../../llm/json-extract.ts";
import type { ChatMessage } from "../../llm/messages.ts";
import type { TraceStep } from "../trace.ts";
import { evaluateCondition } from "./conditions.ts";
import { withLookups } from "./evidence.ts";
import {
  type Condition,
  ConditionSchema,
  type Evidence,
  type Review,
  type Rule,
  type RuleStatus,
  type Worldbook,
} from "./schema.ts";

/**
 * LLM-assisted construction: after the deterministic build, each tentative or conflicted rule is shown
 * to a model with a few supporting and contrasting evidence items; the model proposes a condition that
 * separates them and a one-line note. A condition is accepted only when re-checking it against all the
 * build evidence keeps every supporting transition and lowers the counterexamples; anything else
 * (unparseable output included) is recorded as a rejected review with its reason.
 */

export interface ReviewOptions {
  client: ChatClient;
  /** Supporting and contrasting items shown per rule (each side). */
  evidencePerSide?: number;
  /** State fields shown per evidence item (sorted by path). */
  maxStateFields?: number;
  /** Rules reviewed at most; the others are listed as unreviewed. */
  maxRules?: number;
}

const AnswerSchema = z
  .object({ condition: ConditionSchema.nullable().optional(), note: z.string().max(500).optional() })
  .strict();
export type ReviewAnswer = z.infer<typeof AnswerSchema>;

/** A transition the review can re-check conditions on: its evidence, action and state before. */
export interface ReviewCase {
  evidence: Evidence;
  action: Readonly<Record<string, unknown>>;
  before: StateRecord;
}

/** The model's answer: the first JSON object (fenced or bare) that has the answer's shape. */
export function parseReviewAnswer(
  text: string,
): { ok: true; answer: ReviewAnswer } | { ok: false; reason: string } {
  const regions = [...fencedBlocks(text), text];
  let problem = "no JSON object in the answer";
  for (const region of regions) {
    for (const c of extractJsonCandidates(region)) {
      if (c.kind !== "value") {
        problem = `a ${c.kind} JSON object in the answer`;
        continue;
      }
      const parsed = AnswerSchema.safeParse(c.value);
      if (parsed.success) return { ok: true, answer: parsed.data };
      problem = `JSON not of the form {"condition": {"path","op","value"} | null, "note": "..."} (${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")})`;
    }
  }
  return { ok: false, reason: `unparseable answer: ${problem}` };
}

function shownState(state: StateRecord, max: number): Record<string, unknown> {
  const keys = Object.keys(state).sort();
  const shown = Object.fromEntries(keys.slice(0, max).map((k) => [k, state[k]]));
  return keys.length > max ? { ...shown, "...": `${keys.length - max} more fields` } : shown;
}

const SYSTEM = [
  "You review one induced transition rule of a world model built from recorded environment traces.",
  "Supporting cases are transitions the rule explains; contrasting cases are transitions it does not.",
  "Propose ONE condition on the state before the action that holds in every supporting case and fails in the contrasting ones,",
  'and a one-line note. Answer with JSON only: {"condition": {"path": "...", "op": "eq|ne|gt|gte|lt|lte|exists|not_exists|contains|in", "value": ...} or null, "note": "..."}.',
].join(" ");

/** The chat messages asking the model to review `rule` on the cases shown. */
export function reviewMessages(
  rule: Rule,
  supporting: ReadonlyArray<ReviewCase>,
  contrasting: ReadonlyArray<ReviewCase>,
  maxStateFields: number,
): ChatMessage[] {
  const item = (c: ReviewCase) => ({
    id: c.evidence.id,
    state: shownState(c.before, maxStateFields),
    changes: c.evidence.facts,
    outcome: c.evidence.outcome,
  });
  const body = {
    rule: {
      id: rule.id,
      action: rule.action,
      params: rule.params,
      conditions: rule.conditions,
      outcomes: rule.outcomes,
      status: rule.status,
      support: rule.support,
      counterexamples: rule.counterexamples,
    },
    supporting: supporting.map(item),
    contrasting: contrasting.map(item),
  };
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: JSON.stringify(body, null, 1) },
  ];
}

function statusOf(support: number, counterexamples: number, minSupport: number): RuleStatus {
  if (counterexamples > 0) return "conflicted";
  return support < minSupport ? "tentative" : "supported";
}

/**
 * Re-checks `condition` on the rule's cases: rejected when it is not true on a supporting case (false or
 * unknown there), or when it fails on no counterexample; else the counts with it added.
 */
export function verifyCondition(
  rule: Rule,
  condition: Condition,
  supporting: ReadonlyArray<ReviewCase>,
  counterexamples: ReadonlyArray<ReviewCase>,
  minSupport: number,
): { accepted: true; counterexamples: number; status: RuleStatus } | { accepted: false; reason: string } {
  const lost = supporting.find((c) => evaluateCondition(condition, c.before, c.action) !== true);
  if (lost)
    return {
      accepted: false,
      reason: `the condition is not true on supporting evidence ${lost.evidence.id}, so it would drop a transition the rule explains`,
    };
  const left = counterexamples.filter(
    (c) => evaluateCondition(condition, c.before, c.action) !== false,
  ).length;
  if (left >= counterexamples.length)
    return {
      accepted: false,
      reason: `the condition does not lower the counterexamples (${left} of ${counterexamples.length} still match)`,
    };
  return { accepted: true, counterexamples: left, status: statusOf(rule.support, left, minSupport) };
}

/** The rule's cases from the build steps, by attribution. */
function casesOf(wb: Worldbook, steps: ReadonlyArray<TraceStep>) {
  const byId = new Map(steps.map((s) => [`${s.episodeId}#${s.step}`, s]));
  const lookups = wb.manifest.options.lookups;
  const cases = new Map<string, Record<"attributed" | "counterexample" | "withheld", ReviewCase[]>>();
  for (const e of wb.evidence) {
    const step = byId.get(e.id);
    if (!step?.state) continue;
    const entry = cases.get(e.attribution.rule) ?? { attributed: [], counterexample: [], withheld: [] };
    entry[e.attribution.status].push({
      evidence: e,
      action: step.action as Record<string, unknown>,
      before: withLookups(step.state, lookups),
    });
    cases.set(e.attribution.rule, entry);
  }
  return cases;
}

/**
 * Reviews the worldbook's tentative and conflicted rules (in rule order, one request each, temperature 0)
 * with the build `steps` it was made from; returns the worldbook with the accepted conditions added to
 * their rules (counterexamples, confidence and status recomputed) and every review in `reviews`.
 */
export async function reviewWorldbook(
  wb: Worldbook,
  steps: ReadonlyArray<TraceStep>,
  options: ReviewOptions,
): Promise<Worldbook> {
  const perSide = options.evidencePerSide ?? 3;
  const maxFields = options.maxStateFields ?? 60;
  const candidates = wb.rules.filter((r) => r.status !== "supported");
  const reviewed = new Set(candidates.slice(0, options.maxRules ?? 100).map((r) => r.id));
  const cases = casesOf(wb, steps);
  const reviews: Review[] = [];
  const rules: Rule[] = [];
  for (const rule of wb.rules) {
    if (!reviewed.has(rule.id)) {
      rules.push(rule);
      continue;
    }
    const mine = cases.get(rule.id) ?? { attributed: [], counterexample: [], withheld: [] };
    const contrasting = mine.counterexample.length > 0 ? mine.counterexample : mine.withheld;
    const shown = [...mine.attributed.slice(0, perSide), ...contrasting.slice(0, perSide)];
    const result = await options.client.complete({
      messages: reviewMessages(
        rule,
        mine.attributed.slice(0, perSide),
        contrasting.slice(0, perSide),
        maxFields,
      ),
      temperature: 0,
    });
    const raw = result.texts[0] ?? "";
    const before = { support: rule.support, counterexamples: rule.counterexamples, status: rule.status };
    const base = { rule: rule.id, evidence: shown.map((c) => c.evidence.id), before, raw };
    const reject = (reason: string, extra: Partial<Review> = {}) => {
      reviews.push({ ...base, ...extra, status: "rejected", reason });
      rules.push(rule);
    };
    const parsed = parseReviewAnswer(raw);
    if (!parsed.ok) {
      reject(parsed.reason);
      continue;
    }
    const { condition, note } = parsed.answer;
    const extra = { ...(condition ? { condition } : {}), ...(note === undefined ? {} : { note }) };
    if (!condition) {
      reject("the model proposed no condition", extra);
      continue;
    }
    const minSupport = wb.manifest.options.minSupport;
    const verdict = verifyCondition(rule, condition, mine.attributed, mine.counterexample, minSupport);
    if (!verdict.accepted) {
      reject(verdict.reason, extra);
      continue;
    }
    const after = { support: rule.support, counterexamples: verdict.counterexamples, status: verdict.status };
    reviews.push({
      ...base,
      ...extra,
      status: "accepted",
      reason: `re-checked on the build evidence: keeps all ${rule.support} supporting transitions, counterexamples ${rule.counterexamples} → ${verdict.counterexamples}`,
      after,
    });
    rules.push({
      ...rule,
      conditions: [...rule.conditions, condition],
      counterexamples: verdict.counterexamples,
      confidence: rule.support / (rule.support + verdict.counterexamples + 1),
      status: verdict.status,
    });
  }
  const unreviewed = candidates.filter((r) => !reviewed.has(r.id)).map((r) => r.id);
  return { ...wb, rules, reviews: { model: options.client.config.model, reviews, unreviewed } };
}
