/**
 * The one model both trainable policies share: a log-linear softmax over a state's candidate actions,
 * π(a | s) ∝ exp(θ · φ(s, a) / T). A feature vector φ is sparse: named features with values. The
 * tabular policy is the case of one indicator feature per (state key, action); the linear policy
 * uses shared, descriptive features. Parameters are a growable Float64Array indexed by feature name.
 */

/** A sparse feature vector: feature names with their values (absent = 0). */
export type Features = ReadonlyArray<readonly [string, number]>;

/** Named parameters over a plain typed array; an unknown feature has weight 0. */
export class Parameters {
  readonly index = new Map<string, number>();
  values = new Float64Array(16);

  static from(weights: Readonly<Record<string, number>>): Parameters {
    const p = new Parameters();
    for (const [name, w] of Object.entries(weights)) p.set(name, w);
    return p;
  }

  get size(): number {
    return this.index.size;
  }

  /** The slot of `name`, created (weight 0) when new. */
  slot(name: string): number {
    let i = this.index.get(name);
    if (i !== undefined) return i;
    i = this.index.size;
    this.index.set(name, i);
    if (i >= this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    return i;
  }

  /** Sets a weight (the slot is found, and the array grown, before the write). */
  set(name: string, value: number): void {
    const i = this.slot(name);
    this.values[i] = value;
  }

  weight(name: string): number {
    const i = this.index.get(name);
    return i === undefined ? 0 : (this.values[i] ?? 0);
  }

  dot(features: Features): number {
    let s = 0;
    for (const [name, v] of features) s += this.weight(name) * v;
    return s;
  }

  clone(): Parameters {
    const p = new Parameters();
    for (const [name, i] of this.index) p.set(name, this.values[i] ?? 0);
    return p;
  }

  /** The weights as a record in first-seen order, zeros left out (the checkpoint form). */
  toRecord(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, i] of this.index) {
      const w = this.values[i] ?? 0;
      if (w !== 0) out[name] = w;
    }
    return out;
  }
}

/** A sparse gradient with the same names as the parameters. */
export class Gradient {
  readonly values = new Map<string, number>();

  add(name: string, v: number): void {
    if (v !== 0) this.values.set(name, (this.values.get(name) ?? 0) + v);
  }

  addFeatures(features: Features, scale: number): void {
    for (const [name, v] of features) this.add(name, v * scale);
  }

  get(name: string): number {
    return this.values.get(name) ?? 0;
  }

  /** θ ← θ − rate·g (descent on a loss). Names are applied in sorted order, so the result is stable. */
  descend(params: Parameters, rate: number): void {
    for (const name of [...this.values.keys()].sort()) {
      const i = params.slot(name);
      params.values[i] = (params.values[i] ?? 0) - rate * this.get(name);
    }
  }
}

/** The logits θ·φ(s, a) of each candidate's features. */
export function logitsOf(params: Parameters, candidates: ReadonlyArray<Features>): number[] {
  return candidates.map((f) => params.dot(f));
}

/** softmax(logits / T) for T > 0; for T = 0 all mass on the first maximum (greedy). */
export function softmax(logits: ReadonlyArray<number>, temperature = 1): number[] {
  if (logits.length === 0) return [];
  if (temperature === 0) {
    const best = argmax(logits);
    return logits.map((_, i) => (i === best ? 1 : 0));
  }
  const scaled = logits.map((z) => z / temperature);
  const max = Math.max(...scaled);
  const exps = scaled.map((z) => Math.exp(z - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** The index of the first maximum. */
export function argmax(xs: ReadonlyArray<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if ((xs[i] ?? -Infinity) > (xs[best] ?? -Infinity)) best = i;
  return best;
}

/** log π(a_k | s) at temperature T > 0. */
export function logProb(logits: ReadonlyArray<number>, k: number, temperature = 1): number {
  const scaled = logits.map((z) => z / temperature);
  const max = Math.max(...scaled);
  const lse = max + Math.log(scaled.reduce((a, z) => a + Math.exp(z - max), 0));
  return (scaled[k] ?? Number.NEGATIVE_INFINITY) - lse;
}

/**
 * Adds scale · ∇_θ log π(a_k | s) to `grad`: (φ(s, a_k) − Σ_a π(a) φ(s, a)) / T, scaled.
 */
export function addLogProbGradient(
  grad: Gradient,
  candidates: ReadonlyArray<Features>,
  probs: ReadonlyArray<number>,
  k: number,
  scale: number,
  temperature = 1,
): void {
  const s = scale / temperature;
  const chosen = candidates[k];
  if (chosen) grad.addFeatures(chosen, s);
  candidates.forEach((f, i) => {
    grad.addFeatures(f, -s * (probs[i] ?? 0));
  });
}

/** KL(π ‖ ρ) of two distributions over the same candidates. */
export function klDivergence(p: ReadonlyArray<number>, q: ReadonlyArray<number>): number {
  let kl = 0;
  p.forEach((pi, i) => {
    if (pi > 0) kl += pi * (Math.log(pi) - Math.log(Math.max(q[i] ?? 0, 1e-300)));
  });
  return kl;
}

/**
 * Adds scale · ∇_θ KL(π_θ ‖ ρ) to `grad`, with π_θ = softmax(z/T): ∂KL/∂z_k = π_k (log π_k/ρ_k − KL) / T.
 */
export function addKlGradient(
  grad: Gradient,
  candidates: ReadonlyArray<Features>,
  probs: ReadonlyArray<number>,
  reference: ReadonlyArray<number>,
  scale: number,
  temperature = 1,
): void {
  const kl = klDivergence(probs, reference);
  candidates.forEach((f, k) => {
    const pk = probs[k] ?? 0;
    if (pk <= 0) return;
    const dz = (pk * (Math.log(pk) - Math.log(Math.max(reference[k] ?? 0, 1e-300)) - kl)) / temperature;
    grad.addFeatures(f, scale * dz);
  });
}
