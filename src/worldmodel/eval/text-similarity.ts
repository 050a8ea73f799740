/** The number of line insertions, deletions and substitutions that turn `a` into `b` (Levenshtein on lines). */
export function lineEditDistance(a: ReadonlyArray<string>, b: ReadonlyArray<string>): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitute, (previous[j] as number) + 1, (current[j - 1] as number) + 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * Line-level text similarity: 1 − (line edit distance) / (the longer text's line count), in [0, 1];
 * 1 for identical texts (two empty texts included), 0 when no line can be kept in place.
 */
export function textSimilarity(predicted: string, real: string): number {
  if (predicted === real) return 1;
  const a = predicted.split("\n");
  const b = real.split("\n");
  return 1 - lineEditDistance(a, b) / Math.max(a.length, b.length);
}
