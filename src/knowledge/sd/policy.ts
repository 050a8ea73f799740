import type { Policy } from "../../core/policy.ts";
import { noActionCandidate } from "../../policies/no-action.ts";
import { actionLabel } from "../action-label.ts";
import { actionValuesOf } from "../knowledge-fields.ts";
import { softmaxIndex } from "../knowledge-policy.ts";
import type { KnowledgeTable } from "../knowledge-table.ts";
import { llmActionValues } from "../llm-writer.ts";

/** Action values an entry's fields carry: statistical/path q values or LLM-written values. */
export function entryActionValues(fields: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const stats = actionValuesOf(fields);
  if (stats) {
    for (const [k, v] of Object.entries(stats)) if (v.q !== null) out[k] = v.q;
    return out;
  }
  return { ...(llmActionValues(fields) ?? {}) };
}

/**
 * The SKL-SD acting policy: reads the knowledge of the current state (its structural key) and samples
 * from a softmax over the known action values (`optimisticPrior` for actions without one).
 */
export function createSdPolicy(table: KnowledgeTable, temperature: number, optimisticPrior: number): Policy {
  return {
    name: "skl-sd",
    async propose(context, propose) {
      const legal = context.observation.legalActions ?? [];
      const key = context.observation.stateKey;
      const values = key === undefined ? {} : entryActionValues(table.read(key)?.fields);
      const scores = legal.map((action) => values[actionLabel(action)] ?? optimisticPrior);
      const candidates = Array.from({ length: propose.n }, () => {
        if (legal.length === 0)
          return noActionCandidate("no_actions", "the observation lists no legal actions");
        const index = softmaxIndex(scores, temperature, propose.random);
        const action = legal[index] ?? null;
        return { action, raw: action ? actionLabel(action) : "" };
      });
      return { candidates };
    },
  };
}
