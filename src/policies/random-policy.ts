import {
  type Action,
  type Candidate,
  type Observation,
  type Policy,
  type PolicyContext,
  type Proposal,
  type ProposeOptions,
  type Random,
  withSyncTwin,
} from "../core/index.ts";
import { parseAxtree } from "../envs/web/accessibility-text.ts";

const WORDS = ["hello", "test", "42", "yes", "blue", "2024"];

/** Element ids listed in an accessibility text (`[12] button "Buy"`), in page order, each once. */
export function elementIdsOf(observation: Observation): string[] {
  return [...new Set(parseAxtree(observation.axtree ?? "").elements.map((e) => e.id))];
}

/** A uniformly random GUI action over the page's elements (clicks mostly, some typing and scrolling). */
function randomGuiAction(observation: Observation, random: Random): Action {
  const ids = elementIdsOf(observation);
  const roll = random.next();
  if (ids.length > 0 && roll < 0.7) return { type: "click", elementId: random.pick(ids) };
  if (ids.length > 0 && roll < 0.85)
    return { type: "type", text: random.pick(WORDS), elementId: random.pick(ids) };
  if (roll < 0.95) return { type: "scroll", direction: random.pick(["up", "down"] as const), amount: 300 };
  return { type: "key", keys: random.pick(["Enter", "Tab", "Escape"]) };
}

/** The raw text of frozen flat actions (environments that cache their legal actions), computed once. */
const rawText = new WeakMap<Action, string>();

function rawOf(action: Action): string {
  const cached = rawText.get(action);
  if (cached !== undefined) return cached;
  const text = JSON.stringify(action);
  if (Object.isFrozen(action) && Object.values(action).every((v) => v === null || typeof v !== "object"))
    rawText.set(action, text);
  return text;
}

/**
 * Uniform over the admissible actions when the environment lists them (grid worlds, chess); otherwise a
 * random action over the page's elements. Temperature is ignored: it is always uniform.
 */
export function createRandomPolicy(): Policy {
  const proposeSync = (context: PolicyContext, options: ProposeOptions): Proposal => {
    const candidates: Candidate[] = [];
    const legal = context.observation.legalActions;
    for (let i = 0; i < options.n; i++) {
      const action =
        legal && legal.length > 0
          ? options.random.pick(legal)
          : randomGuiAction(context.observation, options.random);
      candidates.push({ action, raw: rawOf(action) });
    }
    return { candidates };
  };
  return { name: "random", propose: withSyncTwin(proposeSync) };
}
