/**
 * The learned world-model gate of the WM-consulting trainable policy, and the features a world
 * model's answers add to the candidates. Pure functions over the shared parameters (no world model
 * here: the policy that asks one, and writes the `<call_wm>` transcript, is `src/train/wm-gated-policy.ts`,
 * since this layer may not import `src/rl`).
 *
 * At each step the gate is a logistic model on the gate features x of the state:
 *     q = σ(w · x),   x = bias, step bucket, calls-so-far bucket, normalised entropy H/log n and
 *     margin p(1) − p(2) of the base action distribution (softmax(θ·φ/T) before any WM feature).
 * The policy consults with probability q (greedy at T = 0: q ≥ ½). The gate weights are named
 * `wm-gate:…` in the same parameters as the action weights, so one checkpoint holds both. The step's
 * log-probability is log π_gate(decision) + log π(a | s, WM features); entropy and margin depend on
 * θ, so the gradient has that path too (checked by finite differences).
 */
import { z } from "zod";
import { stepBucket } from "./features.ts";
import { type Features, type Gradient, logitsOf, type Parameters, softmax } from "./log-linear.ts";

/** The WM-consulting policy's caps: calls per step (the top-k candidates asked) and per episode. */
export const WmGateOptionsSchema = z
  .object({
    stepCap: z.number().int().min(1).max(16).default(4),
    episodeCap: z.number().int().min(0).max(1000).default(12),
  })
  .strict();
export type WmGateOptions = z.infer<typeof WmGateOptionsSchema>;

/** What the world model predicted for one candidate, as the policy reads it. */
export interface WmOutcome {
  reward: number;
  terminated: boolean;
  success: boolean;
  /** The predicted observation is neither the current one nor one seen earlier in the episode. */
  novel: boolean;
  /** The world model could not say (an explicit unknown, or an error observation). */
  unknown: boolean;
}

/** The features a prediction adds to its candidate (an unasked candidate gets none). */
export function wmOutcomeFeatures(o: WmOutcome): Features {
  const f: Array<[string, number]> = [["wm:asked", 1]];
  if (o.unknown) {
    f.push(["wm:unknown", 1]);
    return f;
  }
  if (o.reward !== 0) f.push(["wm:reward", o.reward]);
  if (o.success) f.push(["wm:success", 1]);
  else if (o.terminated) f.push(["wm:fail", 1]);
  if (o.novel) f.push(["wm:novel", 1]);
  return f;
}

/** Where the gate decides: the base candidates' features, the step and the calls made so far. */
export interface GateInput {
  baseFeatures: ReadonlyArray<Features>;
  stepIndex: number;
  callsSoFar: number;
}

/** A step's gate decision: consulted, skipped, or closed (the episode's cap is spent: no decision). */
export type GateDecision = "consult" | "skip" | "closed";

function callsBucket(n: number): string {
  if (n === 0) return "0";
  if (n <= 4) return "1-4";
  if (n <= 12) return "5-12";
  return "13+";
}

interface GateEval {
  /** σ(w · x). */
  q: number;
  probs: number[];
  entropy: number;
  margin: number;
  top: [number, number];
  logN: number;
}

/** The gate's indicator features (the real-valued entropy and margin are added by `gateEval`). */
function gateIndicators(input: GateInput): Features {
  return [
    ["wm-gate:bias", 1],
    [`wm-gate:step=${stepBucket(input.stepIndex)}`, 1],
    [`wm-gate:calls=${callsBucket(input.callsSoFar)}`, 1],
  ];
}

function topTwo(probs: ReadonlyArray<number>): [number, number] {
  let a = 0;
  let b = -1;
  for (let i = 1; i < probs.length; i++) {
    const p = probs[i] ?? 0;
    if (p > (probs[a] ?? 0)) {
      b = a;
      a = i;
    } else if (b < 0 || p > (probs[b] ?? 0)) b = i;
  }
  return [a, b];
}

function gateEval(params: Parameters, input: GateInput, temperature: number): GateEval {
  const probs = softmax(logitsOf(params, input.baseFeatures), temperature);
  const n = probs.length;
  const logN = n > 1 ? Math.log(n) : 1;
  let h = 0;
  for (const p of probs) if (p > 0) h -= p * Math.log(p);
  const top = topTwo(probs);
  const margin = (probs[top[0]] ?? 0) - (top[1] >= 0 ? (probs[top[1]] ?? 0) : 0);
  const entropy = n > 1 ? h / logN : 0;
  const u =
    params.dot(gateIndicators(input)) +
    params.weight("wm-gate:entropy") * entropy +
    params.weight("wm-gate:margin") * margin;
  return { q: 1 / (1 + Math.exp(-u)), probs, entropy, margin, top, logN };
}

/** The probability q that the gate consults in this state. */
export function gateProbability(params: Parameters, input: GateInput, temperature: number): number {
  return gateEval(params, input, temperature).q;
}

/** log π_gate(decision): log q, log(1 − q), or 0 for a closed gate (no choice was made). */
export function gateLogProb(
  params: Parameters,
  input: GateInput,
  decision: GateDecision,
  temperature: number,
): number {
  if (decision === "closed") return 0;
  const { q } = gateEval(params, input, temperature);
  return Math.log(Math.max(decision === "consult" ? q : 1 - q, 1e-300));
}

/**
 * Adds scale · ∇_θ log π_gate(decision) to `grad`. With u = w·x and g = [decision = consult],
 * ∂/∂u = g − q; u reads the action weights through H/log n (∂H/∂z_k = −p_k(log p_k + H)) and the
 * margin (∂p_i/∂z_k = p_i(δ_ik − p_k)), z_k = θ·φ_k / T.
 */
export function addGateLogProbGradient(
  grad: Gradient,
  params: Parameters,
  input: GateInput,
  decision: GateDecision,
  scale: number,
  temperature: number,
): void {
  if (decision === "closed") return;
  const e = gateEval(params, input, temperature);
  const du = ((decision === "consult" ? 1 : 0) - e.q) * scale;
  if (du === 0) return;
  grad.addFeatures(gateIndicators(input), du);
  grad.add("wm-gate:entropy", du * e.entropy);
  grad.add("wm-gate:margin", du * e.margin);
  const wH = params.weight("wm-gate:entropy");
  const wM = params.weight("wm-gate:margin");
  const n = e.probs.length;
  if (n < 2 || (wH === 0 && wM === 0)) return;
  const h = e.entropy * e.logN;
  const [i, j] = e.top;
  const pi = e.probs[i] ?? 0;
  const pj = j >= 0 ? (e.probs[j] ?? 0) : 0;
  input.baseFeatures.forEach((f, k) => {
    const pk = e.probs[k] ?? 0;
    const dEntropy = pk > 0 ? (-pk * (Math.log(pk) + h)) / e.logN : 0;
    const dMargin = pi * ((k === i ? 1 : 0) - pk) - pj * ((k === j ? 1 : 0) - pk);
    const dz = wH * dEntropy + wM * dMargin;
    if (dz !== 0) grad.addFeatures(f, (du * dz) / temperature);
  });
}

/** The candidates' features with the WM features of the asked ones appended (by candidate index). */
export function withWmFeatures(
  baseFeatures: ReadonlyArray<Features>,
  outcomes: ReadonlyMap<number, WmOutcome>,
): Features[] {
  return baseFeatures.map((f, k) => {
    const o = outcomes.get(k);
    return o ? [...f, ...wmOutcomeFeatures(o)] : f;
  });
}

/** The indices of the `k` most probable candidates (ties: the lower index first). */
export function topCandidates(probs: ReadonlyArray<number>, k: number): number[] {
  return probs
    .map((p, i) => [p, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, i]) => i);
}
