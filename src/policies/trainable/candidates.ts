import { type Action, canonicalJson, type PolicyContext } from "../../core/index.ts";
import { scoredWebActions } from "../heuristic-web/heuristic-web-policy.ts";
import { templateCommands } from "../terminal-template-policy.ts";

/** An action's key: its canonical JSON (equal actions, equal keys). */
export function actionKey(action: Action): string {
  return canonicalJson(action);
}

/** The family a context plays: the task's, or the worldbook family a world model simulates. */
export function familyOf(context: Pick<PolicyContext, "task">): string {
  return context.task.family;
}

function unique(actions: Iterable<Action>): Action[] {
  const seen = new Set<string>();
  const out: Action[] = [];
  for (const a of actions) {
    const k = actionKey(a);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(a);
  }
  return out;
}

/**
 * The candidate actions a trainable policy chooses among, each once, in a stable order: the
 * environment's legal actions when it lists them (FrozenLake, chess); else the family's model-free
 * policy's enumeration — on the terminal the template policy's commands (with `done`), on the web
 * (and any page-like family) every action the heuristic scores (clicks, typing, selects, Enter,
 * scroll, done). Only the enumeration is reused, never the heuristic's scores.
 */
export function candidateActions(context: PolicyContext): Action[] {
  const legal = context.observation.legalActions;
  if (legal && legal.length > 0) return unique(legal);
  if (familyOf(context) === "terminal")
    return unique([...templateCommands(context).map((s) => s.action), { type: "done" }]);
  const scored = scoredWebActions(context);
  return unique([...scored.map((s) => s.action), { type: "done" }]);
}
