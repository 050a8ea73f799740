import { T1 } from "./catalog/t1.ts";
import { T2 } from "./catalog/t2.ts";
import { T3 } from "./catalog/t3.ts";
import type { NoiseGenerator } from "./generator.ts";

/**
 * The perturbation catalog: 45 generators in three tiers (12 T1, 24 T2, 9 T3; one file per tier in
 * catalog/, built with catalog/kit.ts), 13 of them held out for evaluation only. Each builds a
 * concrete effect from a seeded random, so one generator yields many events (texts, sizes, offsets
 * vary). Effects are applied by the environment in things it creates for them (a shadow-DOM noise
 * layer, native dialogs, extra tabs, the window size).
 */
export const CATALOG: ReadonlyArray<NoiseGenerator> = [...T1, ...T2, ...T3];

const BY_NAME = new Map(CATALOG.map((g) => [g.name, g]));

export function generatorByName(name: string): NoiseGenerator | undefined {
  return BY_NAME.get(name);
}

/** Generators of a split: `train` (usable in search and training) or `heldout` (evaluation only). */
export function generatorsOf(split: "train" | "heldout" | "all"): NoiseGenerator[] {
  if (split === "all") return [...CATALOG];
  return CATALOG.filter((g) => g.heldOut === (split === "heldout"));
}
