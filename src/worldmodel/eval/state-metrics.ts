import { canonicalJson, type StateRecord, type StateValue } from "../../core/index.ts";

/** Whether two state values are equal (lists item by item); an absent value equals only an absent one. */
export function sameStateValue(a: StateValue | undefined, b: StateValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** The canonical key of a state (paths sorted): equal keys mean the same paths with the same values. */
export function stateKey(state: StateRecord): string {
  return canonicalJson(state);
}

/** Exact match: the same paths, each with the same value. */
export function statesEqual(a: StateRecord, b: StateRecord): boolean {
  return stateKey(a) === stateKey(b);
}

function union(...states: ReadonlyArray<StateRecord>): string[] {
  return [...new Set(states.flatMap((s) => Object.keys(s)))].sort();
}

/**
 * Field-level accuracy: the share of the paths of `real ∪ predicted` on which both hold the same value
 * (a path present in one only counts as wrong). 1 when both states are empty.
 */
export function fieldAccuracy(real: StateRecord, predicted: StateRecord): number {
  const paths = union(real, predicted);
  if (paths.length === 0) return 1;
  const right = paths.filter((p) => sameStateValue(real[p], predicted[p])).length;
  return right / paths.length;
}

/** The paths that changed from `before` in `real` or in `predicted`, sorted. */
export function changedPaths(before: StateRecord, real: StateRecord, predicted: StateRecord): string[] {
  return union(before, real, predicted).filter(
    (p) => !sameStateValue(before[p], real[p]) || !sameStateValue(before[p], predicted[p]),
  );
}

/**
 * Changed-field accuracy: over the paths that changed in reality or in the prediction, the share the
 * prediction got right. Undefined when nothing changed in either (the transition does not count).
 * Predicting "nothing changes" scores 0 on every transition that counts.
 */
export function changedFieldAccuracy(
  before: StateRecord,
  real: StateRecord,
  predicted: StateRecord,
): number | undefined {
  const paths = changedPaths(before, real, predicted);
  if (paths.length === 0) return undefined;
  return paths.filter((p) => sameStateValue(real[p], predicted[p])).length / paths.length;
}
