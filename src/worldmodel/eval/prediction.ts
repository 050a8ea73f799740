import type { Action, StateRecord } from "../../core/index.ts";
import type { SimulationStep, Simulator } from "../runtime/contract.ts";
import { stateKey } from "./state-metrics.ts";

/** One distinct predicted next state: its total probability and the most likely step that reached it. */
export interface PredictedOutcome {
  key: string;
  state: StateRecord;
  probability: number;
  step: SimulationStep;
}

/** A simulator's prediction for one (state, action), merged by next state, most likely first. */
export interface Prediction {
  outcomes: PredictedOutcome[];
  /** The most likely next state (ties: the one predicted first). */
  argmax: PredictedOutcome;
}

/** The step a simulator that predicts nothing stands for: the state kept, flagged unknown. */
function abstention(state: StateRecord, system: Simulator["options"]["system"]): SimulationStep {
  return {
    state,
    reward: 0,
    terminated: false,
    trace: { system, candidates: [], fired: [], rejected: [], unknown: true },
  };
}

/**
 * `simulator.predict` merged by next state (probabilities summed; the representative step of a state is
 * its most likely entry). An empty distribution counts as one abstention that keeps the state.
 */
export async function predictOutcomes(
  simulator: Simulator,
  state: StateRecord,
  action: Action,
  taskId: string,
): Promise<Prediction> {
  const entries = await simulator.predict(state, action, { taskId });
  const byKey = new Map<string, PredictedOutcome & { best: number }>();
  for (const { step, probability } of entries) {
    const key = stateKey(step.state);
    const known = byKey.get(key);
    if (known === undefined) {
      byKey.set(key, { key, state: step.state, probability, step, best: probability });
      continue;
    }
    known.probability += probability;
    if (probability > known.best) Object.assign(known, { step, best: probability });
  }
  const outcomes: PredictedOutcome[] = [...byKey.values()].map(({ best: _b, ...o }) => o);
  if (outcomes.length === 0) {
    const step = abstention(state, simulator.options.system);
    outcomes.push({ key: stateKey(state), state, probability: 1, step });
  }
  const argmax = outcomes.reduce((best, o) => (o.probability > best.probability ? o : best));
  return { outcomes, argmax };
}
