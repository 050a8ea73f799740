import { z } from "zod";
import { type Action, type Candidate, type PolicyContext, parseJsonText, UserError } from "../core/index.ts";
import {
  actionKey,
  createTrainablePolicy,
  type Features,
  logitsOf,
  type Parameters,
  scoreState,
  softmax,
  type TrainableKind,
  type TrainablePolicy,
} from "../policies/trainable/index.ts";
import {
  addGateLogProbGradient,
  type GateDecision,
  type GateInput,
  gateLogProb,
  gateProbability,
  topCandidates,
  type WmGateOptions,
  type WmOutcome,
  withWmFeatures,
} from "../policies/trainable/wm-gate.ts";
import { wmCallText } from "../rl/wm-lookahead.ts";
import { countWmCalls } from "../rl/wm-transcript.ts";
import type { WmPrediction, WorldModel } from "../rl/world-model.ts";
import type { GateTerm } from "./losses.ts";

const GATE_LINE = "WM gate: ";
const OUTCOMES_LINE = "WM outcomes: ";

const OutcomesSchema = z.array(
  z
    .object({
      action: z.unknown(),
      reward: z.number(),
      terminated: z.boolean(),
      success: z.boolean(),
      novel: z.boolean(),
      unknown: z.boolean(),
    })
    .strict(),
);

/** The `<call_wm>` calls of the steps before this one in the episode (the counter starts at 0 per episode). */
export function callsSoFar(context: Pick<PolicyContext, "history">): number {
  return context.history.reduce((n, h) => n + countWmCalls(h.raw), 0);
}

function outcomeOf(p: WmPrediction, context: PolicyContext): WmOutcome {
  const text = p.observation.text;
  return {
    reward: p.reward,
    terminated: p.terminated,
    success: p.success,
    novel: text !== context.observation.text && !context.history.some((h) => h.observation.text === text),
    unknown: p.observation.error !== undefined,
  };
}

/** The temperature the gate inputs are computed at (T = 0 plays greedily but reads the T = 1 distribution). */
const gateTemperature = (t: number) => (t > 0 ? t : 1);

/**
 * A trainable policy (tabular or linear) that may consult a world model. Per step: unless the
 * episode's `episodeCap` calls are spent ("closed"), the learned gate (`wm-gate.ts`) decides whether
 * to consult; if it does, the world model predicts the outcome of the `stepCap` most probable
 * candidates (within the episode's remaining calls), each prediction adds WM features to its
 * candidate, and the action is sampled from the softmax over the extended features. The raw output
 * is the `<call_wm>` transcript (`wm-transcript.ts`, as `wm-lookahead` writes it, so `countWmCalls`
 * counts the calls), a `WM gate:` line, the outcomes as JSON (what the trainer reads back) and
 * `Action: {...}`. One gate draw per step: with n > 1 every candidate shares it.
 */
export function createWmGatedPolicy(
  kind: TrainableKind,
  params: Parameters,
  wm: WorldModel,
  options: WmGateOptions,
  name = `wm-${kind}`,
): TrainablePolicy {
  const plain = createTrainablePolicy(kind, params, name);
  return {
    name,
    kind,
    params,
    async propose(context, propose) {
      const state = scoreState(kind, context);
      if (state.actions.length === 0) return plain.propose(context, propose);
      const used = callsSoFar(context);
      const input: GateInput = {
        baseFeatures: state.features,
        stepIndex: context.stepIndex,
        callsSoFar: used,
      };
      const tg = gateTemperature(propose.temperature);
      let decision: GateDecision = "closed";
      if (used < options.episodeCap) {
        const q = gateProbability(params, input, tg);
        const open = propose.temperature === 0 ? q >= 0.5 : propose.random.next() < q;
        decision = open ? "consult" : "skip";
      }
      const lines: string[] = [];
      const outcomes = new Map<number, WmOutcome>();
      if (decision === "consult") {
        const k = Math.min(options.stepCap, options.episodeCap - used);
        const base = softmax(logitsOf(params, state.features), tg);
        for (const i of topCandidates(base, k)) {
          const action = state.actions[i] as Action;
          const p = await wm.predict(action, { task: context.task, observation: context.observation });
          lines.push(wmCallText(action, p));
          outcomes.set(i, outcomeOf(p, context));
        }
      }
      lines.push(`${GATE_LINE}${decision}`);
      if (decision === "consult")
        lines.push(
          `${OUTCOMES_LINE}${JSON.stringify([...outcomes].map(([i, o]) => ({ action: state.actions[i], ...o })))}`,
        );
      const probs = softmax(logitsOf(params, withWmFeatures(state.features, outcomes)), propose.temperature);
      const candidates: Candidate[] = [];
      for (let c = 0; c < propose.n; c++) {
        const k = propose.temperature === 0 ? probs.indexOf(1) : propose.random.weighted(probs);
        const action = state.actions[k] as Action;
        candidates.push({ action, raw: [...lines, `Action: ${JSON.stringify(action)}`].join("\n") });
      }
      return { candidates };
    },
  };
}

/** One recorded step of the WM-consulting policy, rebuilt for the trainer. */
export interface WmGatedStep {
  /** Candidates' features with the WM features of the asked ones (what the action was drawn from). */
  features: Features[];
  chosen: number;
  input: GateInput;
  decision: GateDecision;
}

function rawError(context: PolicyContext, why: string): UserError {
  return new UserError(
    "train.wm_gate_raw",
    `GRPO with the WM gate: the raw output of step ${context.stepIndex} of task ${context.task.id} was not written by the WM-consulting policy: ${why}; train on rollouts of that policy only`,
  );
}

function recorded(raw: string, line: string): string | undefined {
  return raw
    .split("\n")
    .find((l) => l.startsWith(line))
    ?.slice(line.length);
}

/**
 * Rebuilds a step from its context, action and raw output: the base candidates (with the action
 * among them), the gate input recomputed from the history, the recorded decision and outcomes. A raw
 * output the policy did not write is an internal error naming the step.
 */
export function wmGatedStep(
  kind: TrainableKind,
  context: PolicyContext,
  action: Action,
  raw: string,
): WmGatedStep {
  const state = scoreState(kind, context, action);
  const chosen = state.actions.findIndex((a) => actionKey(a) === actionKey(action));
  const decision = recorded(raw, GATE_LINE) as GateDecision | undefined;
  if (decision !== "consult" && decision !== "skip" && decision !== "closed")
    throw rawError(context, `it has no '${GATE_LINE}consult|skip|closed' line`);
  const outcomes = new Map<number, WmOutcome>();
  const text = recorded(raw, OUTCOMES_LINE);
  if (text !== undefined)
    for (const o of parseJsonText(text, OutcomesSchema, {
      syntax: (e) => rawError(context, `its outcomes are not JSON (${e.message})`),
      invalid: () => rawError(context, "its outcomes do not match the policy's format"),
    })) {
      const i = state.actions.findIndex((a) => actionKey(a) === actionKey(o.action as Action));
      if (i >= 0) outcomes.set(i, o);
    }
  return {
    features: withWmFeatures(state.features, outcomes),
    chosen,
    input: { baseFeatures: state.features, stepIndex: context.stepIndex, callsSoFar: callsSoFar(context) },
    decision,
  };
}

/** The gate's part of a step's log-probability, as the clipped loss takes it. */
export function gateTerm(step: WmGatedStep, temperature: number): GateTerm {
  const tg = gateTemperature(temperature);
  return {
    logProb: (params) => gateLogProb(params, step.input, step.decision, tg),
    addGradient: (grad, params, scale) =>
      addGateLogProbGradient(grad, params, step.input, step.decision, scale, tg),
  };
}
