/** The median of a list of figures (the upper one of the middle two for an even count; 0 when empty). */
export const median = (xs: ReadonlyArray<number>): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
