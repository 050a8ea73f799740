/**
 * The DAST-shaped budget reward of WM-R1, shared by the length part R_L and the WM-call part R_WM.
 * With a group's success share p = c/N, a reference value (the successful members' mean) and a maximum,
 * the budget is p·ref + (1−p)·max and a member's deviation λ = (value − budget)/budget. A success scores
 * max(0.5 − 0.5λ, 0.1), a failure min(0.9λ − 0.1, −0.1).
 */

/** The budget statistics of one quantity (length or WM calls) over one group. */
export interface BudgetStats {
  /** Mean of the successful members' values; the maximum when none succeeded. */
  reference: number;
  maximum: number;
  /** p·reference + (1−p)·maximum. */
  budget: number;
}

/** The budget of `values` (one per member, `successes[i]` for each), with `maximum` when one is set. */
export function budgetStats(
  values: ReadonlyArray<number>,
  successes: ReadonlyArray<boolean>,
  maximum: number | undefined,
): BudgetStats {
  const max = maximum ?? Math.max(0, ...values);
  const won = values.filter((_, i) => successes[i]);
  const reference = won.length === 0 ? max : won.reduce((a, b) => a + b, 0) / won.length;
  const p = values.length === 0 ? 0 : won.length / values.length;
  return { reference, maximum: max, budget: p * reference + (1 - p) * max };
}

/**
 * λ = (value − budget)/budget. Guard: a budget with |budget| ≤ `epsilon` (0, or 1e-9 and below by
 * default) is not divided by — λ is then the absolute deviation value − budget, so a member on the
 * budget has λ = 0 and one above it λ = its excess (each unit over counts as one whole budget over).
 * With a zero budget, zero use therefore scores 0.5 on a success and −0.1 on a failure; never NaN or ∞.
 */
export function budgetDeviation(value: number, budget: number, epsilon: number): number {
  const d = value - budget;
  if (Math.abs(budget) <= epsilon) return Math.abs(d) <= epsilon ? 0 : d;
  return d / budget;
}

/** success: max(0.5 − 0.5λ, 0.1); failure: min(0.9λ − 0.1, −0.1). */
export function budgetReward(success: boolean, lambda: number): number {
  return success ? Math.max(0.5 - 0.5 * lambda, 0.1) : Math.min(0.9 * lambda - 0.1, -0.1);
}
