import type { Action, Candidate, Policy, PolicyContext } from "../../core/index.ts";
import { actionKey, candidateActions } from "./candidates.ts";
import type { Checkpoint, TrainableKind } from "./checkpoint.ts";
import { linearFeatures, tabularFeatures } from "./features.ts";
import { type Features, logitsOf, Parameters, softmax } from "./log-linear.ts";

/** A state's candidates with their features, as the policy and the trainers see them. */
export interface ScoredState {
  actions: Action[];
  features: Features[];
}

/** The feature function of a kind. */
export function featureFunction(kind: TrainableKind): (context: PolicyContext, action: Action) => Features {
  return kind === "tabular" ? tabularFeatures : linearFeatures;
}

/** The candidates of a context and their features (an empty list when nothing can be proposed). */
export function scoreState(kind: TrainableKind, context: PolicyContext, extra?: Action): ScoredState {
  const actions = candidateActions(context);
  if (extra && !actions.some((a) => actionKey(a) === actionKey(extra))) actions.push(extra);
  const phi = featureFunction(kind);
  return { actions, features: actions.map((a) => phi(context, a)) };
}

export interface TrainablePolicy extends Policy {
  readonly kind: TrainableKind;
  /** Live parameters: a trainer updates them in place between rollouts. */
  readonly params: Parameters;
}

/**
 * A trainable policy (tabular or linear) over the parameters `params`: softmax(θ·φ / T) over the
 * state's candidates, greedy (first maximum) at T = 0; all randomness from `options.random`. A state
 * without candidates gets a `fail` action saying so.
 */
export function createTrainablePolicy(
  kind: TrainableKind,
  params: Parameters,
  name: string = kind,
): TrainablePolicy {
  return {
    name,
    kind,
    params,
    async propose(context, options) {
      const state = scoreState(kind, context);
      if (state.actions.length === 0) {
        const action: Action = { type: "fail", reason: "no candidate actions in this state" };
        const raw = JSON.stringify(action);
        return { candidates: Array.from({ length: options.n }, () => ({ action, raw })) };
      }
      const probs = softmax(logitsOf(params, state.features), options.temperature);
      const candidates: Candidate[] = [];
      for (let i = 0; i < options.n; i++) {
        const k = options.temperature === 0 ? probs.indexOf(1) : options.random.weighted(probs);
        const action = state.actions[k] as Action;
        candidates.push({ action, raw: JSON.stringify(action) });
      }
      return { candidates };
    },
  };
}

/** The policy a checkpoint holds (its weights copied into fresh parameters). */
export function policyFromCheckpoint(checkpoint: Checkpoint, name?: string): TrainablePolicy {
  return createTrainablePolicy(checkpoint.kind, Parameters.from(checkpoint.weights), name);
}
