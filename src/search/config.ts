import { z } from "zod";

/**
 * ENVS search parameters. Defaults are those of SEEDS.md §1 (the paper's K = 32, root budget 5,
 * child budget 2, per-step cap 2 so k = 3 behaviours are explored, horizon 15).
 */
export const SearchConfigSchema = z
  .object({
    /** Upper bound on candidates per node and step. */
    kMax: z.number().int().positive().default(32),
    /** Candidates per step shared by all alive nodes: K = max(1, min(kMax, ceil(budget / alive))). */
    totalProbeBudget: z.number().int().positive().default(32),
    /** Sampling temperature of the frozen policy. */
    temperature: z.number().min(0).max(5).default(1),
    /** Click/drag coordinates are quantised on a grid of this many pixels. */
    gridPx: z.number().positive().default(50),
    /** Typed text is whitespace-collapsed, lower-cased and cut to this many characters. */
    typeTextChars: z.number().int().positive().default(30),
    /** A bucket needs at least this many candidates to count as valid. */
    minBucketSize: z.number().int().positive().default(1),
    /** From this step on, a node that has not branched yet defers branching (no first branch late). */
    lateStepDeferral: z.number().int().nonnegative().default(10),
    /** Branching events allowed to the root node. */
    rootBranchBudget: z.number().int().nonnegative().default(5),
    /** Branching events allowed to each child node. */
    childBranchBudget: z.number().int().nonnegative().default(2),
    /** Children spawned per branching event (the parent continues on the top bucket as well). */
    perStepCap: z.number().int().nonnegative().default(2),
    /** Branching happens only at steps below this (default: the horizon). */
    hardCutoff: z.number().int().positive().optional(),
    /** A node ends after this many actions. */
    horizon: z.number().int().positive().default(15),
    /** A node ends after this many identical consecutive actions. */
    maxIdenticalActions: z.number().int().min(2).default(3),
    /** A node ends after this many consecutive waits. */
    maxConsecutiveWaits: z.number().int().min(1).default(2),
    /** Live environments at once (parent and children); the rest wait in a queue. */
    maxLiveEnvs: z.number().int().positive().default(4),
    /**
     * Children that may wait for an environment. An environment slot is free when a live environment
     * is idle or the queue has room; with no free slot, K = 1 (so nothing branches).
     */
    maxQueued: z.number().int().nonnegative().default(64),
    /**
     * Share of branches that draw noise (OSWorld-Noisy, train generators only); the rest are clean
     * controls. 0 = no noise. Needs a perturbable environment (web).
     */
    noiseFraction: z.number().min(0).max(1).default(0),
    /** Success rate for the noise fire count; default: each tree's own so far, (s + 1) / (leaves + 2). */
    noiseSuccessRate: z.number().min(0).max(1).optional(),
    /** Safety cap on nodes per tree. */
    maxNodesPerTree: z.number().int().positive().default(256),
  })
  .strict();

export type SearchConfig = z.infer<typeof SearchConfigSchema>;
export type SearchConfigInput = z.input<typeof SearchConfigSchema>;

export function hardCutoffOf(config: SearchConfig): number {
  return config.hardCutoff ?? config.horizon;
}
