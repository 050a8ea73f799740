import { expect } from "vitest";
import type { Gradient, Parameters } from "../../src/policies/trainable/index.ts";
import type { LossResult } from "../../src/train/index.ts";

/**
 * Compares every component of `grad` with the central finite difference of `value` at `params`
 * (step 1e-5, 6 digits); returns how many components were checked.
 */
export function checkGradient(params: Parameters, grad: Gradient, value: (p: Parameters) => number): number {
  const h = 1e-5;
  let checked = 0;
  for (const [name, i] of params.index) {
    const plus = params.clone();
    plus.set(name, (params.values[i] ?? 0) + h);
    const minus = params.clone();
    minus.set(name, (params.values[i] ?? 0) - h);
    expect(grad.get(name)).toBeCloseTo((value(plus) - value(minus)) / (2 * h), 6);
    checked += 1;
  }
  return checked;
}

/** `checkGradient` for a loss that returns its own gradient. */
export function checkLossGradient(params: Parameters, loss: (p: Parameters) => LossResult): number {
  return checkGradient(params, loss(params).grad, (p) => loss(p).loss);
}
