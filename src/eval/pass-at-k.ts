/**
 * Unbiased pass@k (Chen et al. 2021): 1 − C(n−c, k)/C(n, k) for n samples with c successes,
 * computed as a stable product. With n ≤ k it is the plain "any success" indicator.
 */
export function passAtK(n: number, c: number, k: number): number {
  check(n, c, k);
  if (c === 0) return 0;
  if (n < k) return 1;
  if (n - c < k) return 1;
  let prob = 1;
  for (let i = n - c + 1; i <= n; i++) prob *= 1 - k / i;
  return 1 - prob;
}

/** pass^k: the probability that k samples drawn without replacement all succeed, C(c, k)/C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  check(n, c, k);
  if (k > n) return c === n ? 1 : 0;
  if (c < k) return 0;
  let prob = 1;
  for (let i = 0; i < k; i++) prob *= (c - i) / (n - i);
  return prob;
}

function check(n: number, c: number, k: number): void {
  if (
    !Number.isInteger(n) ||
    !Number.isInteger(c) ||
    !Number.isInteger(k) ||
    n < 0 ||
    c < 0 ||
    c > n ||
    k < 1
  ) {
    throw new RangeError(`pass@k needs integers n ≥ c ≥ 0 and k ≥ 1 (got n=${n}, c=${c}, k=${k})`);
  }
}

/** Mean of a per-task metric over tasks. */
export function meanOverTasks(values: ReadonlyArray<number>): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
