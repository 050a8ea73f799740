import type { ChatClient } from "../../llm/index.ts";
import type { Candidate, Rejection, SimulationTrace } from "./contract.ts";
import { createLlmSession } from "./llm-proposer.ts";
import { abstain, emptyTrace, type Outcome } from "./outcomes.ts";
import { proposeFromRule } from "./proposers.ts";
import { judgeCandidates, type StepInputs, traceCandidates } from "./step-context.ts";
import { isOutcome, retrievalSystem, retrievalThroughGate, validated } from "./systems.ts";

/** Rejections for the candidates the applicability gate did not let through. */
function applicabilityRejections(candidates: ReadonlyArray<Candidate>): Rejection[] {
  return candidates
    .filter((c) => c.verdict === "contradicted" || c.verdict === "uncertain")
    .map((c) => ({ stage: "applicability" as const, basis: c.rule.id, reason: `${c.verdict}: ${c.reason}` }));
}

/**
 * What a step does once no proposal passed: the retrieval fallback (when evidence is used), its
 * precedent's effects lifted to this action and state, or abstain.
 */
export function fallback(
  inputs: StepInputs,
  base: SimulationTrace,
  rejected: ReadonlyArray<Rejection>,
  probability: number,
): Outcome {
  if (inputs.options.onReject === "retrieval" && inputs.options.useEvidence)
    return retrievalThroughGate(inputs, base, rejected, probability, 1, true);
  return abstain(inputs.state, base, rejected, probability);
}

/** The full system's setup: the evidence-only ablation is retrieval; otherwise the judged candidates. */
export function fullSetup(inputs: StepInputs): {
  base: SimulationTrace;
  usable: Candidate[];
  rejected: Rejection[];
} {
  const candidates = judgeCandidates(inputs);
  const usable = candidates.filter((c) => c.verdict === "supporting" || c.verdict === "format-only");
  const rejected = applicabilityRejections(candidates);
  if (usable.length === 0 && candidates.length === 0)
    rejected.push({ stage: "applicability", reason: "no rule matches the action" });
  return { base: emptyTrace("full", traceCandidates(candidates)), usable, rejected };
}

/**
 * full with the rule proposer: the most specific usable rule's outcomes, each through the validation
 * gate; the probability of an outcome that is rejected goes to what `onReject` says — the next usable
 * rule (`retry`, up to `maxRetries`), the retrieval fallback, or abstain.
 */
export function fullRulesSystem(inputs: StepInputs): Outcome[] {
  if (!inputs.options.useAbstractions) return retrievalSystem(inputs, "full");
  const { base, usable, rejected } = fullSetup(inputs);
  const retries = inputs.options.onReject === "retry" ? inputs.options.maxRetries : 0;
  const attempt = (i: number, seen: ReadonlyArray<Rejection>, mass: number): Outcome[] => {
    const candidate = usable[i];
    if (!candidate || i > retries) return [fallback(inputs, base, seen, mass)];
    const out: Outcome[] = [];
    for (const r of proposeFromRule(candidate.rule, inputs)) {
      if ("rejection" in r) {
        out.push(...attempt(i + 1, [...seen, r.rejection], mass * r.probability));
        continue;
      }
      const v = validated(
        inputs,
        base,
        r.weighted.proposal,
        seen,
        mass * r.weighted.probability,
        candidate.rule,
      );
      if (isOutcome(v)) out.push(v);
      else out.push(...attempt(i + 1, [...seen, v], mass * r.weighted.probability));
    }
    return out;
  };
  return attempt(0, rejected, 1);
}

/**
 * full with the LLM proposer: the model's proposal through the validation gate; after a rejection (an
 * unparseable reply, no proposal within the turn budget, or a proposal the gate rejects) `retry` asks
 * again in the same conversation with the reason (up to `maxRetries`), then `onReject`'s fallback.
 */
export async function fullLlmSystem(inputs: StepInputs, llm: ChatClient): Promise<Outcome[]> {
  if (!inputs.options.useAbstractions) return retrievalSystem(inputs, "full");
  const { base } = fullSetup(inputs);
  const session = createLlmSession(llm, inputs);
  const attempts = inputs.options.onReject === "retry" ? 1 + inputs.options.maxRetries : 1;
  const seen: Rejection[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const asked = await session.ask(attempt);
    if ("rejection" in asked) {
      seen.push(asked.rejection);
      continue;
    }
    const v = validated(inputs, base, asked.proposal, seen, 1);
    if (isOutcome(v)) return [v];
    seen.push(v);
    session.reject(v.reason);
  }
  return [fallback(inputs, base, seen, 1)];
}
