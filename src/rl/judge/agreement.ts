/**
 * Agreement of a judge with the programmatic verifier over binary verdicts. The confusion matrix has
 * the verifier on the rows and the judge on the columns: `tp` both success, `fn` verifier success /
 * judge failure, `fp` verifier failure / judge success, `tn` both failure.
 */
export interface Confusion {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

export interface Agreement {
  n: number;
  confusion: Confusion;
  /** (tp + tn) / n; null when n = 0. */
  accuracy: number | null;
  /**
   * Cohen's κ = (p_o − p_e)/(1 − p_e), p_e from the two sides' marginals. null when it is undefined:
   * n = 0, or p_e = 1 (both sides gave one and the same class only — perfect but uninformative
   * agreement). When exactly one side uses a single class, κ is 0.
   */
  kappa: number | null;
  /** Why `kappa` is null. */
  kappaUndefined?: string;
}

/** The 2×2 matrix of (verifier, judge) verdict pairs. */
export function confusionOf(pairs: Iterable<{ verifier: boolean; judge: boolean }>): Confusion {
  const m: Confusion = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const { verifier, judge } of pairs) {
    if (verifier && judge) m.tp += 1;
    else if (verifier) m.fn += 1;
    else if (judge) m.fp += 1;
    else m.tn += 1;
  }
  return m;
}

/** Accuracy and Cohen's κ of a confusion matrix (degenerate cases guarded, see `Agreement`). */
export function agreementOf(confusion: Confusion): Agreement {
  const { tp, fn, fp, tn } = confusion;
  const n = tp + fn + fp + tn;
  if (n === 0) return { n, confusion, accuracy: null, kappa: null, kappaUndefined: "no judged trajectories" };
  const po = (tp + tn) / n;
  const pe = ((tp + fn) * (tp + fp) + (fp + tn) * (fn + tn)) / (n * n);
  if (1 - pe <= 1e-12)
    return {
      n,
      confusion,
      accuracy: po,
      kappa: null,
      kappaUndefined: "both the verifier and the judge gave one and the same class only",
    };
  return { n, confusion, accuracy: po, kappa: (po - pe) / (1 - pe) };
}
