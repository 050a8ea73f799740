/** A discrete distribution: outcome key → probability. */
export type Distribution = ReadonlyMap<string, number>;

/** Total-variation distance ½ Σ |p(x) − q(x)| over the union of outcomes, in [0, 1]. */
export function totalVariation(p: Distribution, q: Distribution): number {
  let sum = 0;
  for (const [key, pk] of p) sum += Math.abs(pk - (q.get(key) ?? 0));
  for (const [key, qk] of q) if (!p.has(key)) sum += Math.abs(qk);
  return sum / 2;
}

/** The empirical distribution of a sample of outcome keys (each key's share). */
export function empiricalDistribution(keys: ReadonlyArray<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return new Map([...counts].map(([key, count]) => [key, count / keys.length]));
}

/** Weighted probabilities summed per key, in the order keys first appear. */
export function distributionOf(
  entries: ReadonlyArray<{ key: string; probability: number }>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const { key, probability } of entries) out.set(key, (out.get(key) ?? 0) + probability);
  return out;
}
