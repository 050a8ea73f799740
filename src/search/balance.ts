import { UserError } from "../core/index.ts";

/** Per-task statistics of a search, the input of global balancing (SEEDS.md §1). */
export interface TaskStats {
  taskId: string;
  leaves: number;
  successes: number;
  /** Unique kept step examples of the task (T_i). */
  uniqueSteps: number;
}

export interface TaskWeight {
  taskId: string;
  successRate: number;
  uniqueSteps: number;
  /** (1 − SR)^β / T before normalisation (0 when the task has no success). */
  rawWeight: number;
  /** Pre-clip task mass T·raw = (1 − SR)^β. */
  rawMass: number;
  /** Per-example weight: mean 1 over all kept examples, at most w_max. */
  weight: number;
  /** Final task mass T·weight. */
  mass: number;
  clipped: boolean;
}

export interface BalanceOptions {
  beta: number;
  /** Cap relative to the mean weight (≥ 1). */
  wMax: number;
}

/**
 * w_i = (1 − SR_i)^β / T_i for tasks with at least one success (tasks without success contribute
 * nothing). Normalised to mean 1 over all kept examples and clipped at w_max. "Clip, then renormalise"
 * is solved exactly, as its fixed point: w_i = min(w_max, s·raw_i) with the one scale s that makes the
 * mean 1 — so no weight exceeds w_max after renormalisation and unclipped tasks keep their ratios.
 */
export function balanceWeights(stats: ReadonlyArray<TaskStats>, options: BalanceOptions): TaskWeight[] {
  if (!(options.wMax >= 1)) {
    throw new UserError("balance.w_max", `w_max must be at least 1 (the mean weight), got ${options.wMax}`);
  }
  if (!(options.beta >= 0)) throw new UserError("balance.beta", `beta must be ≥ 0, got ${options.beta}`);
  const rows = stats.map((s) => {
    const successRate = s.leaves > 0 ? s.successes / s.leaves : 0;
    const kept = s.successes > 0 && s.uniqueSteps > 0;
    const rawWeight = kept ? (1 - successRate) ** options.beta / s.uniqueSteps : 0;
    return { s, successRate, rawWeight, kept };
  });
  const scale = solveScale(
    rows.filter((r) => r.kept && r.rawWeight > 0).map((r) => ({ raw: r.rawWeight, count: r.s.uniqueSteps })),
    rows.reduce((a, r) => a + (r.kept ? r.s.uniqueSteps : 0), 0),
    options.wMax,
  );
  return rows.map((r) => {
    // A task with raw weight 0 (SR = 1) weighs 0 even when every other task is clipped (scale ∞).
    const unclipped = r.rawWeight > 0 ? scale * r.rawWeight : 0;
    const weight = r.kept ? Math.min(options.wMax, unclipped) : 0;
    return {
      taskId: r.s.taskId,
      successRate: r.successRate,
      uniqueSteps: r.s.uniqueSteps,
      rawWeight: r.rawWeight,
      rawMass: r.rawWeight * r.s.uniqueSteps,
      weight,
      mass: r.kept ? weight * r.s.uniqueSteps : 0,
      clipped: r.kept && unclipped > options.wMax,
    };
  });
}

/**
 * The s with Σ count·min(wMax, s·raw) = examples. Tasks are tried clipped in order of raw weight;
 * with j tasks clipped, s = (examples − wMax·Σ_{<j} count) / Σ_{≥j} count·raw.
 * Examples with raw weight 0 (SR = 1) stay at 0; if they exist the mean is taken over all examples.
 */
function solveScale(items: Array<{ raw: number; count: number }>, examples: number, wMax: number): number {
  if (items.length === 0 || examples === 0) return 0;
  const sorted = [...items].sort((a, b) => b.raw - a.raw);
  let clippedCount = 0;
  let rest = sorted.reduce((a, x) => a + x.count * x.raw, 0);
  for (let j = 0; j < sorted.length; j++) {
    const s = (examples - wMax * clippedCount) / rest;
    const head = sorted[j] as { raw: number; count: number };
    if (s * head.raw <= wMax + 1e-12) return s;
    clippedCount += head.count;
    rest -= head.count * head.raw;
  }
  // Every task clipped: all weights are w_max (the mean cannot reach 1 only if w_max < 1, excluded).
  return Number.POSITIVE_INFINITY;
}
