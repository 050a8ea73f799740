import { canonicalJson, type StateRecord } from "../../core/index.ts";
import type { Rejection, SimulationStep, SimulationTrace, SimulatorSystem } from "./contract.ts";

/** One possible committed step with its probability. */
export interface Outcome {
  step: SimulationStep;
  probability: number;
}

/** The trace of a step before anything was proposed. */
export function emptyTrace(
  system: SimulatorSystem,
  candidates: SimulationTrace["candidates"] = [],
): SimulationTrace {
  return { system, candidates, fired: [], rejected: [], unknown: false };
}

/** The step that abstains: the state unchanged (a copy), reward 0, not terminated, `unknown: true`. */
export function abstain(
  state: StateRecord,
  base: SimulationTrace,
  rejected: ReadonlyArray<Rejection>,
  probability: number,
): Outcome {
  return {
    step: {
      state: { ...state },
      reward: 0,
      terminated: false,
      trace: { ...base, rejected: [...rejected], unknown: true },
    },
    probability,
  };
}

/** Outcomes with the same committed result (state, reward, termination) merged, first trace kept, in order. */
export function mergeOutcomes(outcomes: ReadonlyArray<Outcome>): Outcome[] {
  if (outcomes.length === 1 && (outcomes[0] as Outcome).probability > 0) return [...outcomes];
  const byKey = new Map<string, Outcome>();
  for (const o of outcomes) {
    if (o.probability <= 0) continue;
    const key = canonicalJson([o.step.state, o.step.reward, o.step.terminated, o.step.trace.unknown]);
    const known = byKey.get(key);
    if (known) known.probability += o.probability;
    else byKey.set(key, { step: o.step, probability: o.probability });
  }
  return [...byKey.values()];
}

/** The outcome a draw in [0, 1) selects from a distribution (the last one takes rounding leftovers). */
export function drawOutcome(outcomes: ReadonlyArray<Outcome>, draw: number): Outcome {
  const total = outcomes.reduce((s, o) => s + o.probability, 0);
  let acc = 0;
  for (const o of outcomes) {
    acc += o.probability / total;
    if (draw < acc) return o;
  }
  return outcomes[outcomes.length - 1] as Outcome;
}
