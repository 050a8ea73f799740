import { Parameters } from "../policies/trainable/index.ts";
import type { WeightedStep } from "./losses.ts";

/** A candidate's features as dense indices into the batch's name table, with their values. */
interface DenseFeatures {
  index: Int32Array;
  value: Float64Array;
}

interface DenseStep {
  candidates: DenseFeatures[];
  chosen: number;
  weight: number;
}

/**
 * Full-batch gradient descent on `weightedCrossEntropy` (+ L2) over a batch compiled once to dense
 * feature indices: the same arithmetic, in the same order, as evaluating `weightedCrossEntropy` and
 * `Gradient.descend` on named `Parameters` every epoch — so the same weights to the last bit and the
 * same slot order — without a string-keyed map lookup per feature per epoch.
 *
 * Names are indexed locally: first the initial parameters' slots, then the features' names. A name
 * gets its `Parameters` slot when its gradient first moves it, new names of one step in sorted order
 * (what `Gradient.descend` does); the L2 term runs over the slotted names in slot order.
 */
export class DenseSft {
  private readonly names: string[] = [];
  private readonly local = new Map<string, number>();
  private readonly steps: DenseStep[];
  private readonly total: number;
  private weights: Float64Array;
  private grad: Float64Array;
  private touched: Uint8Array;
  private touchedList: number[] = [];
  private slotted: Uint8Array;
  /** Local indices in the parameters' slot order. */
  private readonly slotOrder: number[] = [];

  constructor(init: Parameters, steps: ReadonlyArray<WeightedStep>) {
    const initial: number[] = [];
    for (const [name, i] of init.index) {
      this.indexOf(name);
      initial.push(init.values[i] ?? 0);
    }
    this.steps = steps.map((s) => ({
      candidates: s.features.map((f) => {
        const index = new Int32Array(f.length);
        const value = new Float64Array(f.length);
        f.forEach(([name, v], j) => {
          index[j] = this.indexOf(name);
          value[j] = v;
        });
        return { index, value };
      }),
      chosen: s.chosen,
      weight: s.weight,
    }));
    this.total = steps.reduce((a, s) => a + s.weight, 0);
    const n = this.names.length;
    this.weights = new Float64Array(n);
    this.weights.set(initial);
    this.grad = new Float64Array(n);
    this.touched = new Uint8Array(n);
    this.slotted = new Uint8Array(n);
    for (let i = 0; i < initial.length; i++) {
      this.slotted[i] = 1;
      this.slotOrder.push(i);
    }
  }

  private indexOf(name: string): number {
    let i = this.local.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.local.set(name, i);
    }
    return i;
  }

  private add(i: number, v: number): void {
    if (v === 0) return;
    if (this.touched[i] === 0) {
      this.touched[i] = 1;
      this.touchedList.push(i);
    }
    this.grad[i] = (this.grad[i] ?? 0) + v;
  }

  private dot(f: DenseFeatures): number {
    let s = 0;
    for (let j = 0; j < f.index.length; j++) s += (this.weights[f.index[j] ?? 0] ?? 0) * (f.value[j] ?? 0);
    return s;
  }

  private addFeatures(f: DenseFeatures, scale: number): void {
    for (let j = 0; j < f.index.length; j++) this.add(f.index[j] ?? 0, (f.value[j] ?? 0) * scale);
  }

  /**
   * The loss at the current weights; its gradient is left in `grad` (for `descend`). log π and π are
   * `logProb` and `softmax` at T = 1 with one shared sum: the same operations in the same order.
   */
  loss(l2: number): number {
    const total = this.total;
    let loss = 0;
    let exps = new Float64Array(8);
    if (total > 0)
      for (const s of this.steps) {
        if (s.weight === 0) continue;
        const n = s.candidates.length;
        if (exps.length < n) exps = new Float64Array(n);
        const logits = s.candidates.map((f) => this.dot(f));
        const max = Math.max(...logits);
        let sum = 0;
        for (let i = 0; i < n; i++) {
          const e = Math.exp((logits[i] ?? 0) - max);
          exps[i] = e;
          sum += e;
        }
        const lse = max + Math.log(sum);
        loss -= (s.weight * ((logits[s.chosen] ?? Number.NEGATIVE_INFINITY) - lse)) / total;
        const scale = -s.weight / total;
        const chosen = s.candidates[s.chosen];
        if (chosen) this.addFeatures(chosen, scale);
        for (let i = 0; i < n; i++)
          this.addFeatures(s.candidates[i] as DenseFeatures, -scale * ((exps[i] ?? 0) / sum));
      }
    if (l2 === 0) return loss;
    let sq = 0;
    for (const i of this.slotOrder) {
      const w = this.weights[i] ?? 0;
      sq += w * w;
      this.add(i, l2 * w);
    }
    return loss + 0.5 * l2 * sq;
  }

  /** θ ← θ − rate·g with the gradient of the last `loss`, which is then cleared. */
  descend(rate: number): void {
    const fresh = this.touchedList.filter((i) => this.slotted[i] === 0);
    const sortedNames = fresh.map((i) => this.names[i] as string).sort();
    for (const name of sortedNames) {
      const i = this.local.get(name) as number;
      this.slotted[i] = 1;
      this.slotOrder.push(i);
    }
    for (const i of this.touchedList) {
      this.weights[i] = (this.weights[i] ?? 0) - rate * (this.grad[i] ?? 0);
      this.grad[i] = 0;
      this.touched[i] = 0;
    }
    this.touchedList = [];
  }

  /** Clears the gradient of a `loss` that is not followed by `descend`. */
  clearGradient(): void {
    for (const i of this.touchedList) {
      this.grad[i] = 0;
      this.touched[i] = 0;
    }
    this.touchedList = [];
  }

  /** The weights as named parameters, slots in the order the named loop would have made them. */
  parameters(): Parameters {
    const p = new Parameters();
    for (const i of this.slotOrder) p.set(this.names[i] as string, this.weights[i] ?? 0);
    return p;
  }
}
