import type { PerturbationEffect, Random } from "../core/index.ts";

/**
 * Tiers of SEEDS.md §1 (OSWorld-Noisy): T1 concurrent user activity in things the noise opens, T2
 * ambient interruptions, T3 accidental interference with the agent's target.
 */
export type NoiseTier = "T1" | "T2" | "T3";
export const NOISE_TIERS: ReadonlyArray<NoiseTier> = ["T1", "T2", "T3"];

/** What an agent does to get past a perturbation (the first one listed is the generator's own). */
export type RecoveryBehaviour = "refocus" | "dismiss" | "escape" | "wait" | "move" | "scroll" | "ignore";
export const RECOVERY_BEHAVIOURS: ReadonlyArray<RecoveryBehaviour> = [
  "refocus",
  "dismiss",
  "escape",
  "wait",
  "move",
  "scroll",
  "ignore",
];

/** One perturbation generator of the catalog. */
export interface NoiseGenerator {
  name: string;
  tier: NoiseTier;
  /** Steps an agent needs to recover (0–3); also the room left after the fire step. */
  cost: 0 | 1 | 2 | 3;
  category: string;
  recovery: RecoveryBehaviour;
  /** May fire more than once in an episode. */
  repeatable: boolean;
  /** Aims at the element the task needs next (needs one to be visible). */
  needsTarget: boolean;
  /** Reserved for evaluation: never used in search or training. */
  heldOut: boolean;
  description: string;
  /**
   * When the event counts as recovered: `status` when the environment reports it gone (closed,
   * dismissed, refocused, moved, expired); `next_action` at the agent's next action that applies
   * without an error (effects that stay but only need the agent to re-locate: scroll jumps, shifts).
   */
  recoveredBy: "status" | "next_action";
  /** A concrete effect; `random` varies the text and numbers (internal randomisation). */
  build(random: Random): PerturbationEffect;
}

/** The catalog's metadata without the builder (what `rehearsal noise list --json` prints). */
export type NoiseGeneratorInfo = Omit<NoiseGenerator, "build">;

export function generatorInfo(g: NoiseGenerator): NoiseGeneratorInfo {
  const { build: _build, ...info } = g;
  return info;
}
