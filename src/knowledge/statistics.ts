/** A proportion with its 95 % Wilson score interval. */
export interface RateEstimate {
  count: number;
  n: number;
  /** count / n (0 when n is 0). */
  rate: number;
  low: number;
  high: number;
}

const Z95 = 1.959963984540054;

/** Wilson score interval for `count` successes in `n` trials; n = 0 gives rate 0 and [0, 1]. */
export function wilson(count: number, n: number, z = Z95): RateEstimate {
  if (n <= 0) return { count: 0, n: 0, rate: 0, low: 0, high: 1 };
  const p = count / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { count, n, rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Rounds for stable JSON (reports, knowledge fields): 6 decimals. */
export function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** "2/5 (40%)". */
export function fraction(count: number, n: number): string {
  return `${count}/${n} (${n === 0 ? 0 : Math.round((100 * count) / n)}%)`;
}
