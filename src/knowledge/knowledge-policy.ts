import type { Action } from "../core/action.ts";
import type { Candidate, Policy, PolicyContext, ProposeOptions } from "../core/policy.ts";
import { noActionCandidate } from "../policies/no-action.ts";
import { actionLabel } from "./action-label.ts";
import { actionValuesOf } from "./knowledge-fields.ts";
import type { KnowledgeTable } from "./knowledge-table.ts";

export interface KnowledgePolicyOptions {
  name?: string;
  table: KnowledgeTable;
  /**
   * The keys to read, most specific first (a state's structural key, then a coarser one; or the path
   * keys of the trajectory baseline). Per action, the first key whose entry has a value for it is used.
   */
  keys: (context: PolicyContext) => ReadonlyArray<string>;
  /** Softmax temperature over action values; 0 = greedy (ties broken at random). */
  temperature: number;
  /** The value assumed for an action no entry knows (optimism drives exploration; default 0.5). */
  optimisticPrior?: number;
  /** The actions to choose from when the observation lists none. */
  fallbackActions?: ReadonlyArray<Action>;
}

export interface ActionScore {
  action: Action;
  label: string;
  q: number;
  /** The key the value came from, or null for the prior. */
  source: string | null;
}

/** Scores each legal action from the table (stage 1: state understanding) for one decision. */
export function scoreActions(
  context: PolicyContext,
  options: Pick<KnowledgePolicyOptions, "table" | "keys" | "optimisticPrior" | "fallbackActions">,
): ActionScore[] {
  const legal = context.observation.legalActions ?? options.fallbackActions ?? [];
  const prior = options.optimisticPrior ?? 0.5;
  const views = options
    .keys(context)
    .map((key) => ({ key, values: actionValuesOf(options.table.read(key)?.fields) }));
  return legal.map((action) => {
    const label = actionLabel(action);
    for (const view of views) {
      const v = view.values?.[label];
      if (v && v.q !== null) return { action, label, q: v.q, source: view.key };
    }
    return { action, label, q: prior, source: null };
  });
}

/** Index drawn from softmax(q / temperature); temperature 0 picks uniformly among the maxima. */
export function softmaxIndex(
  values: ReadonlyArray<number>,
  temperature: number,
  random: ProposeOptions["random"],
): number {
  const max = Math.max(...values);
  if (temperature <= 0) {
    const best = values.flatMap((v, i) => (v >= max - 1e-12 ? [i] : []));
    return best[random.int(best.length)] ?? 0;
  }
  return random.weighted(values.map((v) => Math.exp((v - max) / temperature)));
}

/**
 * Acts on stateful knowledge in two stages: read what the table knows about the current state (or path),
 * then sample an action from a softmax over the estimated action values. Its raw text records the values
 * and where they came from. Reads only: it never writes the table.
 */
export function createKnowledgePolicy(options: KnowledgePolicyOptions): Policy {
  return {
    name: options.name ?? "knowledge",
    async propose(context, propose) {
      const scores = scoreActions(context, options);
      const candidates: Candidate[] = [];
      for (let i = 0; i < propose.n; i++) {
        if (scores.length === 0) {
          candidates.push(noActionCandidate("no_actions", "the observation lists no legal actions"));
          continue;
        }
        const index = softmaxIndex(
          scores.map((s) => s.q),
          options.temperature,
          propose.random,
        );
        const chosen = scores[index] as ActionScore;
        const raw = JSON.stringify({
          values: Object.fromEntries(scores.map((s) => [s.label, { q: s.q, source: s.source }])),
          action: chosen.label,
        });
        candidates.push({ action: chosen.action, raw });
      }
      return { candidates };
    },
  };
}
