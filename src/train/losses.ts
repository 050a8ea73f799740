import {
  addKlGradient,
  addLogProbGradient,
  type Features,
  Gradient,
  klDivergence,
  logitsOf,
  logProb,
  type Parameters,
  softmax,
} from "../policies/trainable/index.ts";

/** One state of a batch: its candidates' features and the index of the action taken (or the target). */
export interface BatchStep {
  features: Features[];
  chosen: number;
}

export interface WeightedStep extends BatchStep {
  weight: number;
}

export interface LossResult {
  loss: number;
  grad: Gradient;
}

/** Adds (l2/2)·‖θ‖² of the named weights to a loss and l2·θ to its gradient. */
function addL2(params: Parameters, l2: number, result: LossResult): LossResult {
  if (l2 === 0) return result;
  let sq = 0;
  for (const [name, i] of params.index) {
    const w = params.values[i] ?? 0;
    sq += w * w;
    result.grad.add(name, l2 * w);
  }
  return { loss: result.loss + 0.5 * l2 * sq, grad: result.grad };
}

/**
 * Weighted cross-entropy of the targets: Σ w_i·(−log π(y_i | s_i)) / Σ w_i (+ L2), and its gradient.
 * A weight scales an example exactly as repeating it would.
 */
export function weightedCrossEntropy(
  params: Parameters,
  steps: ReadonlyArray<WeightedStep>,
  options: { l2?: number; temperature?: number } = {},
): LossResult {
  const t = options.temperature ?? 1;
  const grad = new Gradient();
  const total = steps.reduce((a, s) => a + s.weight, 0);
  let loss = 0;
  if (total > 0)
    for (const s of steps) {
      if (s.weight === 0) continue;
      const logits = logitsOf(params, s.features);
      loss -= (s.weight * logProb(logits, s.chosen, t)) / total;
      addLogProbGradient(grad, s.features, softmax(logits, t), s.chosen, -s.weight / total, t);
    }
  return addL2(params, options.l2 ?? 0, { loss, grad });
}

/** A further factor of a step's probability (the WM-consulting policy's gate decision) with its gradient. */
export interface GateTerm {
  logProb(params: Parameters): number;
  /** Adds scale · ∇_θ logProb to `grad`. */
  addGradient(grad: Gradient, params: Parameters, scale: number): void;
}

/** One step of a GRPO batch: the action's probability under the rollout policy, the advantage, the reference. */
export interface PolicyGradientStep extends BatchStep {
  advantage: number;
  /** π_old(a | s) of the policy that played the rollout (times the old gate probability when `gate` is set). */
  oldProb: number;
  /** The step's gate factor: its probability multiplies the action's in the ratio (KL stays on the action). */
  gate?: GateTerm;
  /** The reference (initial) policy's distribution over the same candidates, for the KL term. */
  reference: number[];
}

export interface ClipOptions {
  /** ε of the ratio clip [1 − ε, 1 + ε]. */
  clip: number;
  /** β of the KL(π_θ ‖ π_ref) penalty (0: none). */
  kl: number;
  temperature: number;
}

/**
 * The PPO-style clipped policy-gradient loss of a batch, averaged over its steps:
 * −mean_t [min(r_t·A_t, clip(r_t, 1−ε, 1+ε)·A_t) − β·KL(π_θ(·|s_t) ‖ π_ref(·|s_t))], r_t = π_θ(a_t|s_t)/π_old(a_t|s_t),
 * with its gradient (the clipped branch has none). Returns the mean KL too.
 */
export function clippedPolicyLoss(
  params: Parameters,
  steps: ReadonlyArray<PolicyGradientStep>,
  options: ClipOptions,
): LossResult & { kl: number } {
  const grad = new Gradient();
  const n = steps.length;
  let loss = 0;
  let klSum = 0;
  if (n === 0) return { loss, grad, kl: 0 };
  const { clip, temperature: t } = options;
  for (const s of steps) {
    const probs = softmax(logitsOf(params, s.features), t);
    const gateProb = s.gate ? Math.exp(s.gate.logProb(params)) : 1;
    const ratio = ((probs[s.chosen] ?? 0) * gateProb) / s.oldProb;
    const a = s.advantage;
    const clipped = Math.min(Math.max(ratio, 1 - clip), 1 + clip);
    loss -= Math.min(ratio * a, clipped * a) / n;
    // d/dθ (r·A) = A·r·∇log π; the min picks the unclipped term unless the ratio left the band in A's direction.
    const unclippedActive = a >= 0 ? ratio <= 1 + clip : ratio >= 1 - clip;
    if (unclippedActive && a !== 0) {
      addLogProbGradient(grad, s.features, probs, s.chosen, (-a * ratio) / n, t);
      s.gate?.addGradient(grad, params, (-a * ratio) / n);
    }
    if (options.kl > 0) {
      const kl = klDivergence(probs, s.reference);
      klSum += kl;
      loss += (options.kl * kl) / n;
      addKlGradient(grad, s.features, probs, s.reference, options.kl / n, t);
    } else klSum += klDivergence(probs, s.reference);
  }
  return { loss, grad, kl: klSum / n };
}
