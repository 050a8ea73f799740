import { mapDigest } from "../../envs/frozenlake/map.ts";
import { isGoalReachable, randomMapForSeed } from "../../envs/frozenlake/random-map.ts";
import { createFrozenLakeSuite, type FrozenLakeSuite } from "../../envs/frozenlake/suite.ts";

/** Seed base of the held-out maps (the SKL-SD pipeline's training maps use the suite's default). */
export const HELDOUT_SEED_BASE = "skl-sd-heldout";

export interface ExperimentMaps {
  /** The training maps (ids `random-<size>-<k>`, exactly the pipeline's) and the held-out ones (`heldout-<size>-<k>`). */
  suite: FrozenLakeSuite;
  trainIds: string[];
  heldoutIds: string[];
  /** Candidate held-out maps dropped: a training map has the same rows (or the goal is unreachable). */
  rejected: number;
}

/**
 * The maps of the experiment: the `maps` training maps the SKL-SD pipeline generates (its suite's
 * seeded random maps) and `heldout` other seeded maps of the same size, drawn with `HELDOUT_SEED_BASE`;
 * a candidate whose rows equal a training map's (same digest) is dropped and the next one drawn, so no
 * held-out map is in the training data.
 */
export function experimentMaps(size: number, maps: number, heldout: number): ExperimentMaps {
  const train = createFrozenLakeSuite({
    name: "skl-sd",
    standard: [],
    randomMaps: { size, count: maps, heldoutCount: 0 },
  });
  const seen = new Set(train.list().map((t) => mapDigest(train.map(t.id).rows)));
  const custom: Array<{ id: string; rows: string[]; split: "heldout" }> = [];
  let rejected = 0;
  for (let k = 0; custom.length < heldout; k++) {
    const rows = randomMapForSeed(size, `${HELDOUT_SEED_BASE}|${k}`);
    const digest = mapDigest(rows);
    if (seen.has(digest) || !isGoalReachable(rows)) {
      rejected += 1;
      continue;
    }
    seen.add(digest);
    custom.push({ id: `heldout-${size}-${custom.length}`, rows, split: "heldout" });
  }
  const suite = createFrozenLakeSuite({
    name: "skl-sd-eval",
    standard: [],
    randomMaps: { size, count: maps, heldoutCount: 0 },
    maps: custom,
  });
  return {
    suite,
    trainIds: train.list().map((t) => t.id),
    heldoutIds: custom.map((m) => m.id),
    rejected,
  };
}
