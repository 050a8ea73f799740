import type { StateFieldSpec, StateFieldType } from "../core/state-view.ts";

/**
 * A family's declared state fields from two maps of path (or pattern) to type: the fields actions can
 * change, then the fields fixed for an episode.
 */
export function stateFields(
  mutable: Readonly<Record<string, StateFieldType>>,
  fixed: Readonly<Record<string, StateFieldType>> = {},
): ReadonlyArray<StateFieldSpec> {
  const specs = (paths: Readonly<Record<string, StateFieldType>>, isMutable: boolean) =>
    Object.entries(paths).map(([path, type]): StateFieldSpec => ({ path, type, mutable: isMutable }));
  return Object.freeze([...specs(mutable, true), ...specs(fixed, false)]);
}
