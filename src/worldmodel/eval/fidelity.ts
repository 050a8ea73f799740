import type { StateRecord, StateViewer, Task } from "../../core/index.ts";
import type { SimulationStep, SimulatorOptionsInput, SimulatorSystem } from "../runtime/contract.ts";
import { SimulatorSystemSchema } from "../runtime/contract.ts";
import { createSimulator, type SimulatorDeps } from "../runtime/index.ts";
import type { TraceStep } from "../trace.ts";
import { tryRender } from "../try-render.ts";
import { actionKey } from "../worldbook/evidence.ts";
import type { Worldbook } from "../worldbook/schema.ts";
import { type HeldoutTransition, heldoutTransition, taskIndex } from "./heldout.ts";
import { predictOutcomes } from "./prediction.ts";
import { renderContract } from "./render-contract.ts";
import type { FidelityReport, RejectionCounts, SystemFidelity, TvGroups } from "./report.ts";
import { changedFieldAccuracy, fieldAccuracy, stateKey, statesEqual } from "./state-metrics.ts";
import { textSimilarity } from "./text-similarity.ts";
import { distributionOf, empiricalDistribution, totalVariation } from "./total-variation.ts";

/** The five systems, in report order. */
export const ALL_SYSTEMS: ReadonlyArray<SimulatorSystem> = SimulatorSystemSchema.options;

/**
 * The true next-state distribution of a held-out (state, action), when the caller knows the family's
 * dynamics (FrozenLake's slip): used only for the sampling-noise floor. Undefined: unknown for this one.
 */
export type TrueDistributionHook = (
  transition: HeldoutTransition,
) => ReadonlyArray<{ state: StateRecord; probability: number }> | undefined;

export interface FidelityOptions {
  /** Systems to score (default all five, in the order copy, retrieval, rules, gates, full). */
  systems?: ReadonlyArray<SimulatorSystem>;
  /** Renders predicted states for the text similarity (and views steps that carry no state). */
  viewer: StateViewer;
  /** Tasks of the held-out episodes (the worldbook's tasks are used for the others). */
  tasks?: ReadonlyArray<Task>;
  /** Simulator options every system shares (thresholds, onReject, ablation flags). */
  simulator?: Omit<SimulatorOptionsInput, "system">;
  trueDistribution?: TrueDistributionHook;
  /** The simulator's dependencies (the chat client of the LLM proposer). */
  deps?: SimulatorDeps;
}

/** How one prediction scored on one held-out transition. */
export interface TransitionScore {
  exact: boolean;
  field: number;
  /** Undefined: nothing changed in reality or in the prediction. */
  changed: number | undefined;
  reward: boolean;
  terminated: boolean;
  text: number;
  unknown: boolean;
  rejections: RejectionCounts;
}

/**
 * One predicted step against the real transition. An abstention shows an explicit "unknown"
 * observation, and a state the family cannot render shows none, so their text similarity is 0;
 * otherwise the predicted state is rendered in the family's format from the step's observation and
 * compared with the real next observation.
 */
export function scoreTransition(
  transition: HeldoutTransition,
  predicted: SimulationStep,
  viewer: StateViewer,
): TransitionScore {
  const { step, task, before, after } = transition;
  const rejections: RejectionCounts = { applicability: 0, proposal: 0, validation: 0 };
  for (const r of predicted.trace.rejected) rejections[r.stage]++;
  const unknown = predicted.trace.unknown;
  // A state the family cannot render (a system without gates can predict one) shows no observation.
  const rendered = unknown ? undefined : tryRender(viewer, predicted.state, step.observation, task);
  const text =
    rendered && "observation" in rendered
      ? textSimilarity(rendered.observation.text, step.nextObservation.text)
      : 0;
  return {
    exact: statesEqual(predicted.state, after),
    field: fieldAccuracy(after, predicted.state),
    changed: changedFieldAccuracy(before, after, predicted.state),
    reward: Math.abs(predicted.reward - step.reward) < 1e-9,
    terminated: predicted.terminated === step.terminated,
    text,
    unknown,
    rejections,
  };
}

const mean = (xs: ReadonlyArray<number>): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
const share = (xs: ReadonlyArray<boolean>): number => mean(xs.map((x) => (x ? 1 : 0)));

/** A system's figures: every rate the mean over transitions (changed-field: over those that count). */
export function summariseScores(
  system: string,
  scores: ReadonlyArray<TransitionScore>,
  totalVariationDistance: number,
): SystemFidelity {
  const changed = scores.flatMap((s) => (s.changed === undefined ? [] : [s.changed]));
  const rejections: RejectionCounts = { applicability: 0, proposal: 0, validation: 0 };
  for (const s of scores) {
    rejections.applicability += s.rejections.applicability;
    rejections.proposal += s.rejections.proposal;
    rejections.validation += s.rejections.validation;
  }
  return {
    system,
    transitions: scores.length,
    exactMatch: share(scores.map((s) => s.exact)),
    fieldAccuracy: mean(scores.map((s) => s.field)),
    changedFieldAccuracy: changed.length === 0 ? null : mean(changed),
    changedTransitions: changed.length,
    rewardAccuracy: share(scores.map((s) => s.reward)),
    terminationAccuracy: share(scores.map((s) => s.terminated)),
    textSimilarity: mean(scores.map((s) => s.text)),
    unknownRate: share(scores.map((s) => s.unknown)),
    rejections,
    totalVariation: totalVariationDistance,
  };
}

/** Held-out transitions that share task, state and action: one predicted distribution, one empirical. */
export interface TransitionGroup {
  transitions: HeldoutTransition[];
  empirical: Map<string, number>;
}

/** Groups by (task, state, action), in first-seen order. */
export function groupTransitions(transitions: ReadonlyArray<HeldoutTransition>): TransitionGroup[] {
  const byKey = new Map<string, HeldoutTransition[]>();
  for (const t of transitions) {
    const key = `${t.step.taskId}\u0000${stateKey(t.before)}\u0000${actionKey(t.step.action)}`;
    const list = byKey.get(key);
    if (list) list.push(t);
    else byKey.set(key, [t]);
  }
  return [...byKey.values()].map((list) => ({
    transitions: list,
    empirical: empiricalDistribution(list.map((t) => stateKey(t.after))),
  }));
}

/** Σ_g n_g · TV(q_g, empirical_g) / Σ_g n_g over the groups whose q_g is known. */
function weightedTv(
  groups: ReadonlyArray<TransitionGroup>,
  q: (g: TransitionGroup) => Map<string, number> | undefined,
): number | null {
  let weighted = 0;
  let n = 0;
  for (const g of groups) {
    const distribution = q(g);
    if (distribution === undefined) continue;
    weighted += g.transitions.length * totalVariation(distribution, g.empirical);
    n += g.transitions.length;
  }
  return n === 0 ? null : weighted / n;
}

function tvGroups(groups: ReadonlyArray<TransitionGroup>, hook: TrueDistributionHook | undefined): TvGroups {
  const total = groups.reduce((a, g) => a + g.transitions.length, 0);
  const truth = (g: TransitionGroup) => {
    const d = hook?.(g.transitions[0] as HeldoutTransition);
    return d && distributionOf(d.map((o) => ({ key: stateKey(o.state), probability: o.probability })));
  };
  return {
    groups: groups.length,
    repeatedGroups: groups.filter((g) => g.transitions.length > 1).length,
    meanGroupSize: groups.length === 0 ? 0 : total / groups.length,
    noiseFloor: hook ? weightedTv(groups, truth) : null,
  };
}

/**
 * Next-state fidelity of each system on held-out real transitions: exact match, field and changed-field
 * accuracy, reward/termination accuracy, rendered-text similarity and abstentions of the most likely
 * prediction, rejections by gate stage, and the total-variation distance of the predicted distribution
 * to the empirical one per (task, state, action) group. Deterministic (predict draws nothing).
 */
export async function evaluateFidelity(
  book: Worldbook,
  heldout: ReadonlyArray<TraceStep>,
  options: FidelityOptions,
): Promise<FidelityReport> {
  const tasks = taskIndex(book, options.tasks);
  const transitions = heldout.map((s) => heldoutTransition(s, tasks, options.viewer));
  const groups = groupTransitions(transitions);
  const systems: SystemFidelity[] = [];
  for (const system of options.systems ?? ALL_SYSTEMS) {
    const contract = renderContract(options.viewer, options.deps);
    const simulator = createSimulator(book, { ...options.simulator, system }, contract.deps);
    const scores: TransitionScore[] = [];
    const predicted = new Map<TransitionGroup, Map<string, number>>();
    for (const g of groups) {
      const first = g.transitions[0] as HeldoutTransition;
      contract.at(first.step.observation, first.task);
      const prediction = await predictOutcomes(simulator, first.before, first.step.action, first.step.taskId);
      predicted.set(g, distributionOf(prediction.outcomes));
      for (const t of g.transitions) scores.push(scoreTransition(t, prediction.argmax.step, options.viewer));
    }
    systems.push(summariseScores(system, scores, weightedTv(groups, (g) => predicted.get(g)) ?? 0));
  }
  return {
    families: [...new Set(heldout.map((s) => s.family))].sort(),
    transitions: transitions.length,
    episodes: new Set(heldout.map((s) => s.episodeId)).size,
    tv: tvGroups(groups, options.trueDistribution),
    systems,
  };
}
