import { resolveEffects } from "../worldbook/conditions.ts";
import type { Rule } from "../worldbook/schema.ts";
import type { Proposal, Rejection, WeightedProposal } from "./contract.ts";
import { type Precedent, rankPrecedents } from "./retrieve.ts";
import type { StepInputs } from "./step-context.ts";

/**
 * The rule proposer: one proposal per outcome of `rule`, its effects resolved for this action and state
 * (paths filled, `from` values read), with the outcome's probability. An outcome whose effects cannot be
 * resolved (a missing argument or referenced value) is a rejection at the proposal stage.
 */
export function proposeFromRule(
  rule: Rule,
  inputs: StepInputs,
): Array<{ weighted: WeightedProposal } | { rejection: Rejection; probability: number }> {
  const total = rule.outcomes.reduce((s, o) => s + o.probability, 0);
  return rule.outcomes.map((outcome, index) => {
    const probability = total > 0 ? outcome.probability / total : 1 / rule.outcomes.length;
    const effects = resolveEffects(outcome.effects, inputs.state, inputs.args);
    if (effects === undefined)
      return {
        rejection: {
          stage: "proposal" as const,
          basis: rule.id,
          reason: `outcome ${index} of rule ${rule.id} cannot be resolved: an argument or referenced state value is missing`,
        },
        probability,
      };
    const proposal: Proposal = { source: "rules", basis: rule.id, outcome: index, effects };
    return { weighted: { proposal, probability } };
  });
}

/** The precedents retrieval would copy, nearest first. */
export function precedentsFor(inputs: StepInputs): Precedent[] {
  return rankPrecedents(inputs.index, inputs.state, inputs.args, inputs.memory);
}

/** The retrieval proposer: a precedent's effects and outcome. */
export function proposeFromPrecedent(precedent: Precedent): Proposal {
  return {
    source: "retrieval",
    basis: precedent.id,
    effects: [...precedent.effects],
    reward: precedent.reward,
    terminated: precedent.terminated,
  };
}
