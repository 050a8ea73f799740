import type { Action, Candidate, Policy, PolicyContext, Random } from "../../core/index.ts";
import { parseAxtree } from "../../envs/web/accessibility-text.ts";
import { parseInstruction } from "./instruction.ts";
import { readPage } from "./page-view.ts";
import { recoveryAction } from "./recovery.ts";
import { type Scored, scoreActions } from "./score.ts";

export interface HeuristicWebPolicyOptions {
  /** Multiplies the temperature passed to `propose` (0 = always the best-scoring action). */
  temperatureScale?: number;
  /**
   * Recover from interruptions first (native dialog, foreign tab, noise widgets: see recovery.ts); default
   * true. Without it the policy is "heuristic-norecovery" and acts exactly as before recovery existed.
   */
  recovery?: boolean;
}

/** Names of the elements clicked so far, looked up in the observation each click was made on. */
function visitedNames(history: PolicyContext["history"]): Set<string> {
  const names = new Set<string>();
  for (const h of history) {
    if (h.action?.type !== "click" || h.action.elementId === undefined) continue;
    const el = parseAxtree(h.observation.axtree ?? h.observation.text).elements.find(
      (e) => e.id === (h.action as { elementId?: string }).elementId,
    );
    if (el?.name) names.add(el.name.trim().toLowerCase());
  }
  return names;
}

/** Every action the heuristic considers in a context, with its score (the trainable policies' web candidates). */
export function scoredWebActions(context: PolicyContext): Scored[] {
  const page = readPage(context.observation.axtree ?? context.observation.text);
  const ins = parseInstruction(context.observation.instruction ?? context.task.instruction);
  return scoreActions(
    page,
    ins,
    context.history.map((h) => h.action),
    visitedNames(context.history),
  );
}

/** Softmax sampling over scores; temperature 0 picks the best (first on ties). */
function sample(scored: ReadonlyArray<Scored>, temperature: number, random: Random): Action {
  if (scored.length === 0) return { type: "wait", ms: 500 };
  if (temperature <= 0) {
    let best = scored[0] as Scored;
    for (const s of scored) if (s.score > best.score) best = s;
    return best.action;
  }
  const max = Math.max(...scored.map((s) => s.score));
  const weights = scored.map((s) => Math.exp((s.score - max) / temperature));
  return (scored[random.weighted(weights)] as Scored).action;
}

/**
 * The embedded default web policy (no model): reads the accessibility text and the instruction, scores
 * candidate actions by matching instruction words to element names, labels and roles, and samples them
 * with a softmax at the given temperature. It solves short tasks often and long ones rarely, which is
 * what search needs as a base policy. With recovery on (the default), an interruption seen in the
 * observation is handled first: all n candidates are then the one recovery action.
 */
export function createHeuristicWebPolicy(options: HeuristicWebPolicyOptions = {}): Policy {
  const scale = options.temperatureScale ?? 1;
  const recovery = options.recovery ?? true;
  return {
    name: recovery ? "heuristic" : "heuristic-norecovery",
    async propose(context, { n, temperature, random }) {
      const recover = recovery ? recoveryAction(context) : null;
      if (recover) {
        const raw = JSON.stringify(recover);
        return { candidates: Array.from({ length: n }, () => ({ action: recover, raw })) };
      }
      const scored = scoredWebActions(context);
      const candidates: Candidate[] = [];
      for (let i = 0; i < n; i++) {
        const action = sample(scored, temperature * scale, random);
        candidates.push({ action, raw: JSON.stringify(action) });
      }
      return { candidates };
    },
  };
}
