import { z } from "zod";
import {
  actionKey,
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CurvePoint,
  candidateActions,
  Parameters,
  scoreState,
  type TrainableKind,
} from "../policies/trainable/index.ts";
import { DenseSft } from "./dense-sft.ts";
import type { WeightedStep } from "./losses.ts";
import type { SftExample } from "./sft-records.ts";

export const SftOptionsSchema = z
  .object({
    kind: z.enum(["tabular", "linear"]).default("tabular"),
    epochs: z.number().int().positive().max(100_000).default(200),
    learningRate: z.number().finite().positive().default(1),
    l2: z.number().finite().min(0).default(0),
  })
  .strict();
export type SftOptions = z.infer<typeof SftOptionsSchema>;

export interface SftResult {
  checkpoint: Checkpoint;
  curve: CurvePoint[];
  examples: number;
  /** Targets the candidate enumeration did not list (added to their state's candidates for the loss). */
  targetsOutsideCandidates: number;
}

/** The batch of a set of examples: each example's candidates (with its target) and the target's index. */
export function sftBatch(
  kind: TrainableKind,
  examples: ReadonlyArray<SftExample>,
): {
  steps: WeightedStep[];
  outside: number;
} {
  let outside = 0;
  const steps = examples.map((e) => {
    const state = scoreState(kind, e.context, e.target);
    if (state.actions.length > candidateActions(e.context).length) outside += 1;
    const chosen = state.actions.findIndex((a) => actionKey(a) === actionKey(e.target));
    return {
      features: state.features,
      chosen: chosen >= 0 ? chosen : state.actions.length - 1,
      weight: e.weight,
    };
  });
  return { steps, outside };
}

/**
 * Weighted SFT: full-batch gradient descent on the weighted cross-entropy of every example's target
 * (`weightedCrossEntropy`), `epochs` steps of `learningRate`, from `init` (default all zeros), over
 * the batch compiled once to dense indices (`DenseSft`: bit-identical to the named loop). No
 * randomness at all: the same data and options give the same checkpoint.
 */
export function trainSft(
  examples: ReadonlyArray<SftExample>,
  options: SftOptions,
  meta: { family: string; seed: string; init?: Record<string, number> },
  onEpoch?: (epoch: number, loss: number) => void,
): SftResult {
  const { steps, outside } = sftBatch(options.kind, examples);
  const dense = new DenseSft(Parameters.from(meta.init ?? {}), steps);
  const curve: CurvePoint[] = [];
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const loss = dense.loss(options.l2);
    curve.push({ iteration: epoch, loss });
    dense.descend(options.learningRate);
    onEpoch?.(epoch + 1, loss);
  }
  curve.push({ iteration: options.epochs, loss: dense.loss(options.l2) });
  dense.clearGradient();
  const params = dense.parameters();
  return {
    checkpoint: {
      format: "rehearsal-trainable-policy",
      version: CHECKPOINT_VERSION,
      kind: options.kind,
      family: meta.family,
      weights: params.toRecord(),
      training: { method: "sft", seed: meta.seed, iterations: options.epochs, options, curve },
    },
    curve,
    examples: examples.length,
    targetsOutsideCandidates: outside,
  };
}
