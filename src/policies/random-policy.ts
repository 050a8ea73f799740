import type { Action, Candidate, Observation, Policy, Random } from "../core/index.ts";

const ELEMENT_ID = /\[([A-Za-z0-9_-]+)\]/g;
const WORDS = ["hello", "test", "42", "yes", "blue", "2024"];

/** Element ids listed in an accessibility text (`[12] button "Buy"`). */
export function elementIdsOf(observation: Observation): string[] {
  const text = observation.axtree ?? "";
  const ids = new Set<string>();
  for (const m of text.matchAll(ELEMENT_ID)) if (m[1]) ids.add(m[1]);
  return [...ids];
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

/**
 * Uniform over the admissible actions when the environment lists them (grid worlds, chess); otherwise a
 * random action over the page's elements. Temperature is ignored: it is always uniform.
 */
export function createRandomPolicy(): Policy {
  return {
    name: "random",
    async propose(context, options) {
      const candidates: Candidate[] = [];
      const legal = context.observation.legalActions;
      for (let i = 0; i < options.n; i++) {
        const action =
          legal && legal.length > 0
            ? options.random.pick(legal)
            : randomGuiAction(context.observation, options.random);
        candidates.push({ action, raw: JSON.stringify(action) });
      }
      return { candidates };
    },
  };
}
