import { applyConsequences } from "../worldbook/consequences.ts";
import { applyEffects } from "../worldbook/evidence.ts";
import type { Rule } from "../worldbook/schema.ts";
import { adaptPrecedentEffects } from "./adapt-precedent.ts";
import type { Proposal, Rejection, SimulationTrace } from "./contract.ts";
import { abstain, emptyTrace, type Outcome } from "./outcomes.ts";
import { precedentsFor, proposeFromPrecedent, proposeFromRule } from "./proposers.ts";
import { judgeCandidates, type StepInputs, traceCandidates } from "./step-context.ts";
import { validateProposal } from "./validation.ts";

/** copy: the next state is the current one (a copy), reward 0, not terminated. */
export function copySystem(inputs: StepInputs): Outcome[] {
  return [
    {
      step: { state: { ...inputs.state }, reward: 0, terminated: false, trace: emptyTrace("copy") },
      probability: 1,
    },
  ];
}

/** retrieval: the nearest precedent's effects and outcome applied as they are; none → abstain. */
export function retrievalSystem(inputs: StepInputs, system = inputs.options.system): Outcome[] {
  const base = emptyTrace(system);
  const nearest = precedentsFor(inputs)[0];
  if (!nearest)
    return [
      abstain(
        inputs.state,
        base,
        [{ stage: "proposal", reason: "no transition with this action to retrieve" }],
        1,
      ),
    ];
  const p = proposeFromPrecedent(nearest);
  return [
    {
      step: {
        state: applyEffects(inputs.state, p.effects),
        reward: p.reward ?? 0,
        terminated: p.terminated ?? false,
        trace: { ...base, fired: [nearest.id] },
      },
      probability: 1,
    },
  ];
}

/** rules: the first matching rule's outcomes applied as they are (no gates); no rule → abstain. */
export function rulesSystem(inputs: StepInputs): Outcome[] {
  const candidates = judgeCandidates(inputs);
  const base = emptyTrace("rules", traceCandidates(candidates));
  const rule = candidates[0]?.rule;
  if (!rule)
    return [
      abstain(inputs.state, base, [{ stage: "applicability", reason: "no rule matches the action" }], 1),
    ];
  return proposeFromRule(rule, inputs).map((r) => {
    if ("rejection" in r) return abstain(inputs.state, base, [r.rejection], r.probability);
    const after = applyEffects(inputs.state, r.weighted.proposal.effects);
    const c = applyConsequences(inputs.book, after);
    const trace: SimulationTrace = {
      ...base,
      fired: [rule.id],
      ...(rule.outcomes.length > 1
        ? { outcome: { index: r.weighted.proposal.outcome ?? 0, probability: r.weighted.probability } }
        : {}),
    };
    return {
      step: { state: c.state, reward: c.reward, terminated: c.terminated, trace },
      probability: r.weighted.probability,
    };
  });
}

/** A proposal through the validation gate: the committed outcome, or the rejection. */
export function validated(
  inputs: StepInputs,
  base: SimulationTrace,
  proposal: Proposal,
  rejected: ReadonlyArray<Rejection>,
  probability: number,
  rule?: Rule,
): Outcome | Rejection {
  const v = validateProposal(inputs.book, inputs.validation, inputs.state, proposal, {
    taskId: inputs.context.taskId,
    ...(rule ? { rule: { rule, threshold: inputs.options.confidenceThreshold } } : {}),
  });
  const basis = proposal.basis ? { basis: proposal.basis } : {};
  if (!v.ok) return { stage: "validation", ...basis, reason: v.reason };
  const unobservable = inputs.observable?.(v.state, inputs.context.taskId);
  if (unobservable !== undefined)
    return { stage: "validation", ...basis, reason: `the observation contract fails: ${unobservable}` };
  const trace: SimulationTrace = {
    ...base,
    fired: proposal.basis ? [proposal.basis] : [],
    rejected: [...rejected],
    ...(rule && rule.outcomes.length > 1
      ? {
          outcome: {
            index: proposal.outcome ?? 0,
            probability: rule.outcomes[proposal.outcome ?? 0]?.probability ?? probability,
          },
        }
      : {}),
  };
  return { step: { state: v.state, reward: v.reward, terminated: v.terminated, trace }, probability };
}

export function isOutcome(x: Outcome | Rejection): x is Outcome {
  return "step" in x;
}

/**
 * Precedents through the validation gate, nearest first: the first that passes is committed; with
 * `tries` > 1 the next ones are tried after a rejection; then abstain. `adapt` (the full system's
 * fallback) lifts each precedent's effects to this action and state first (`adaptPrecedentEffects`);
 * the gates system copies them as they are.
 */
export function retrievalThroughGate(
  inputs: StepInputs,
  base: SimulationTrace,
  rejected: ReadonlyArray<Rejection>,
  probability: number,
  tries: number,
  adapt = false,
): Outcome {
  const seen = [...rejected];
  const precedents = precedentsFor(inputs).slice(0, tries);
  if (precedents.length === 0)
    seen.push({ stage: "proposal", reason: "no transition with this action to retrieve" });
  for (const precedent of precedents) {
    const proposal = proposeFromPrecedent(precedent);
    if (adapt) proposal.effects = adaptPrecedentEffects(precedent, inputs.index, inputs.state, inputs.args);
    const r = validated(inputs, base, proposal, seen, probability);
    if (isOutcome(r)) return r;
    seen.push(r);
  }
  return abstain(inputs.state, base, seen, probability);
}

/** gates: retrieval proposals through the validation gate (`retry`: the next nearest precedents). */
export function gatesSystem(inputs: StepInputs): Outcome[] {
  const tries = inputs.options.onReject === "retry" ? 1 + inputs.options.maxRetries : 1;
  return [retrievalThroughGate(inputs, emptyTrace("gates"), [], 1, tries)];
}
