import type { Continuation, Transition } from "./experience-buffer.ts";
import type { KnowledgeEntry } from "./knowledge-entry.ts";
import {
  type ActionKnowledge,
  type StateKnowledgeFields,
  StateKnowledgeFieldsSchema,
} from "./knowledge-fields.ts";
import { fraction, round6, wilson } from "./statistics.ts";
import { reflectTrajectoryStatistically } from "./trajectory-reflection.ts";
import { freshContinuations, type KnowledgeWriter, type UpdateTag, updateProvenance } from "./writer.ts";

/** The words of a state entry's text (an environment names its own outcomes). */
export interface OutcomeTerms {
  /** A terminal step with reward ≤ 0. */
  failure: string;
  /** A terminal step with reward > 0. */
  success: string;
  /** The action's effect was the intended one (`slipped: false`). */
  intended: string;
  /** The verb before an action label. */
  act: string;
}

/** Environment-neutral terms (the default). */
export const GENERIC_OUTCOME_TERMS: OutcomeTerms = {
  failure: "ended in failure",
  success: "succeeded",
  intended: "went as intended",
  act: "taking",
};

export interface StatisticalWriterOptions {
  /** Discount of returns and TD targets (default 0.95). */
  gamma?: number;
  /** V(s') for a successor without knowledge (default 0: nothing is known to lead anywhere). */
  unknownValue?: number;
  /**
   * What a failed terminal step (reward ≤ 0) is worth, as a penalty subtracted from the return
   * (default 1: values lie in [-1, 1], +1 success, -1 failure, 0 undecided). With 0, a failure and a
   * timeout look alike and a sparse-reward task teaches nothing until it is first solved.
   */
  deathPenalty?: number;
  /** How the text names a state (default: the key). */
  describeState?: (key: string) => string;
  /** The words of the text (default `GENERIC_OUTCOME_TERMS`). */
  terms?: OutcomeTerms;
}

export const STATISTICAL_WRITER = "statistical";

function emptyAction(action: string): ActionKnowledge {
  return {
    action,
    n: 0,
    deaths: 0,
    goals: 0,
    slipKnown: 0,
    moved: 0,
    deathRate: 0,
    deathLow: 0,
    deathHigh: 1,
    goalRate: 0,
    goalLow: 0,
    goalHigh: 1,
    moveRate: 0,
    moveLow: 0,
    moveHigh: 1,
    mcN: 0,
    mcMean: 0,
    tdN: 0,
    tdMean: 0,
    q: null,
  };
}

function priorFields(prior: KnowledgeEntry | undefined): StateKnowledgeFields {
  const parsed = StateKnowledgeFieldsSchema.safeParse(prior?.fields);
  if (parsed.success) return structuredClone(parsed.data);
  return { kind: "state", actions: {}, value: null, bestAction: null, visits: 0 };
}

/** Recomputes rates, intervals, q, value and best action from the counts (actions sorted by name). */
function finish(fields: StateKnowledgeFields): StateKnowledgeFields {
  const actions: Record<string, ActionKnowledge> = {};
  let value: number | null = null;
  let bestAction: string | null = null;
  let visits = 0;
  for (const name of Object.keys(fields.actions).sort()) {
    const a = fields.actions[name] as ActionKnowledge;
    const death = wilson(a.deaths, a.n);
    const goal = wilson(a.goals, a.n);
    const move = wilson(a.moved, a.slipKnown);
    const weight = a.mcN + a.tdN;
    const q = weight === 0 ? null : round6((a.mcN * a.mcMean + a.tdN * a.tdMean) / weight);
    actions[name] = {
      ...a,
      deathRate: round6(death.rate),
      deathLow: round6(death.low),
      deathHigh: round6(death.high),
      goalRate: round6(goal.rate),
      goalLow: round6(goal.low),
      goalHigh: round6(goal.high),
      moveRate: round6(move.rate),
      moveLow: round6(move.low),
      moveHigh: round6(move.high),
      mcMean: round6(a.mcMean),
      tdMean: round6(a.tdMean),
      q,
    };
    visits += a.n;
    if (q !== null && (value === null || q > value)) {
      value = q;
      bestAction = name;
    }
  }
  return { kind: "state", actions, value, bestAction, visits };
}

/** The declarative summary of a state entry. */
export function describeStateKnowledge(
  where: string,
  fields: StateKnowledgeFields,
  terms: OutcomeTerms = GENERIC_OUTCOME_TERMS,
): string {
  const parts = Object.values(fields.actions).map((a) => {
    const bits: string[] = [];
    if (a.n > 0) {
      bits.push(`${terms.failure} ${fraction(a.deaths, a.n)}`);
      bits.push(`${terms.success} ${fraction(a.goals, a.n)}`);
    }
    if (a.slipKnown > 0) bits.push(`${terms.intended} ${fraction(a.moved, a.slipKnown)}`);
    if (a.q !== null) bits.push(`estimated value ${a.q.toFixed(2)} (${a.mcN} MC, ${a.tdN} TD)`);
    return `${terms.act} ${a.action} ${bits.join(", ")}`;
  });
  const best =
    fields.bestAction === null || fields.value === null
      ? "No action has a value estimate yet."
      : `Best known action: ${fields.bestAction} (value ${fields.value.toFixed(2)}).`;
  return `From ${where}: ${parts.join("; ") || "no experience"}. ${best}`;
}

/** Reward of one step as the writer values it: the reward, minus the death penalty on a fatal step. */
function stepValue(t: Transition, deathPenalty: number): number {
  return t.reward - (t.terminal && t.reward <= 0 ? deathPenalty : 0);
}

/** Σ γ^k · stepValue(r_k) over the continuation (no bootstrap at its end: pure Monte Carlo). */
export function continuationReturn(c: Continuation, gamma: number, deathPenalty: number): number {
  let g = 0;
  let discount = 1;
  for (const t of c.transitions) {
    g += discount * stepValue(t, deathPenalty);
    discount *= gamma;
  }
  return g;
}

/** The embedded default writer: counts, Wilson-bounded rates, MC and TD action values; no model. */
export function createStatisticalWriter(options: StatisticalWriterOptions = {}): KnowledgeWriter {
  const gamma = options.gamma ?? 0.95;
  const unknownValue = options.unknownValue ?? 0;
  const deathPenalty = options.deathPenalty ?? 1;
  const describe = options.describeState ?? ((key: string) => key);
  const terms = options.terms ?? GENERIC_OUTCOME_TERMS;

  /** Folds each fresh continuation's first step into the prior's fields; null when none is fresh. */
  const update = (
    key: string,
    prior: KnowledgeEntry | undefined,
    continuations: ReadonlyArray<Continuation>,
    tag: UpdateTag,
    fold: (a: ActionKnowledge, first: Transition, c: Continuation) => void,
  ) => {
    const fresh = freshContinuations(prior, continuations, tag);
    if (fresh.length === 0) return null;
    const fields = priorFields(prior);
    for (const c of fresh) {
      const first = c.transitions[0];
      if (!first) continue;
      const a = fields.actions[first.actionLabel] ?? emptyAction(first.actionLabel);
      fold(a, first, c);
      fields.actions[first.actionLabel] = a;
    }
    const done = finish(fields);
    return {
      writer: STATISTICAL_WRITER,
      fields: done,
      text: describeStateKnowledge(describe(key), done, terms),
      provenance: updateProvenance(prior, fresh, tag),
    };
  };

  return {
    name: STATISTICAL_WRITER,

    async understand({ key, prior, continuations }) {
      return update(key, prior, continuations, "mc", (a, first, c) => {
        a.n += 1;
        if (first.terminal && first.reward > 0) a.goals += 1;
        if (first.terminal && first.reward <= 0) a.deaths += 1;
        if (first.slipped !== undefined) {
          a.slipKnown += 1;
          if (!first.slipped) a.moved += 1;
        }
        a.mcN += 1;
        a.mcMean += (continuationReturn(c, gamma, deathPenalty) - a.mcMean) / a.mcN;
      });
    },

    async bootstrap({ key, prior, continuations, successor }) {
      return update(key, prior, continuations, "td", (a, first) => {
        const next = StateKnowledgeFieldsSchema.safeParse(successor(first.nextState)?.fields);
        const v = next.success && next.data.value !== null ? next.data.value : unknownValue;
        const target = stepValue(first, deathPenalty) + (first.terminal ? 0 : gamma * v);
        a.tdN += 1;
        a.tdMean += (target - a.tdMean) / a.tdN;
      });
    },

    async reflectTrajectory(context) {
      return reflectTrajectoryStatistically(context);
    },
  };
}
