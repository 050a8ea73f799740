import type { NoiseEventRecord } from "./noisy-environment.ts";

/**
 * How noise shaped a trajectory (SEEDS.md §1): `clean_*` when no perturbation applied on its path,
 * `recovery_*` when at least one that needed recovery (cost > 0) was recovered, `noisy_*` otherwise
 * (noise applied but was not, or did not need to be, recovered).
 */
export type NoiseTag =
  | "clean_success"
  | "clean_failure"
  | "noisy_success"
  | "noisy_failure"
  | "recovery_success"
  | "recovery_failure";

export const NOISE_TAGS: ReadonlyArray<NoiseTag> = [
  "clean_success",
  "clean_failure",
  "noisy_success",
  "noisy_failure",
  "recovery_success",
  "recovery_failure",
];

export function noiseTag(events: ReadonlyArray<NoiseEventRecord>, success: boolean): NoiseTag {
  const applied = events.filter((e) => !e.refused);
  const outcome = success ? "success" : "failure";
  if (applied.length === 0) return `clean_${outcome}`;
  if (applied.some((e) => e.cost > 0 && e.recoveredAt !== null)) return `recovery_${outcome}`;
  return `noisy_${outcome}`;
}
