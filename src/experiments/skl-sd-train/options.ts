import { z } from "zod";
import { parseKnowledgeOptions } from "../../knowledge/errors.ts";

/** The sizes `--scale` names: `default` is the reported run, `small` the test's (seconds). */
export const SKL_SD_SCALES = {
  default: { maps: 100, heldoutMaps: 100, iterations: 20, evalEpisodes: 10, seeds: [0, 1, 2] },
  small: { maps: 8, heldoutMaps: 8, iterations: 4, evalEpisodes: 3, seeds: [0, 1] },
} as const;
export type SklSdScale = keyof typeof SKL_SD_SCALES;

/**
 * Options of `rehearsal experiment skl-sd` (`runSklSdTrainExperiment`): per seed, the SKL-SD data
 * pipeline on `maps` training maps, SFT of the linear policy on each dataset mix, evaluation on the
 * training maps and on `heldoutMaps` other seeded maps.
 */
export const SklSdTrainOptionsSchema = z
  .object({
    scale: z.enum(["default", "small"]).default("default"),
    /** Overrides of the scale's sizes. */
    maps: z.number().int().min(1).max(2_000).optional(),
    heldoutMaps: z.number().int().min(1).max(2_000).optional(),
    iterations: z.number().int().min(1).max(200).optional(),
    evalEpisodes: z.number().int().min(1).max(1_000).optional(),
    seeds: z.array(z.number().int().min(0)).min(1).max(20).optional(),
    mapSize: z.number().int().min(3).max(12).default(5),
    horizon: z.number().int().min(1).max(200).default(20),
    slip: z.enum(["symmetric", "asymmetric", "none"]).default("symmetric"),
    /** Weights of D_distill and D_reflect in the mixed SFT (the SKL-SD loss's λ1, λ2). */
    lambda1: z.number().min(0).max(100).default(1),
    lambda2: z.number().min(0).max(100).default(1),
    epochs: z.number().int().min(1).max(10_000).default(300),
    learningRate: z.number().positive().max(100).default(1),
    l2: z.number().min(0).max(10).default(0.001),
    /** Sampling temperature of the trained policies when evaluated (0: greedy). */
    temperature: z.number().min(0).max(10).default(0),
    outDir: z.string().min(1).default("experiment-skl-sd"),
  })
  .strict();
export type SklSdTrainOptionsInput = z.input<typeof SklSdTrainOptionsSchema>;

/** The options with the scale's sizes filled in. */
export type SklSdTrainConfig = Omit<z.output<typeof SklSdTrainOptionsSchema>, "seeds"> & {
  maps: number;
  heldoutMaps: number;
  iterations: number;
  evalEpisodes: number;
  seeds: number[];
};

/** Parses the options (a `KnowledgeOptionsError`, a user error, names each problem) and fills the scale in. */
export function parseSklSdTrainOptions(input: unknown): SklSdTrainConfig {
  const o = parseKnowledgeOptions(
    SklSdTrainOptionsSchema,
    input ?? {},
    "experiment skl-sd options (see rehearsal experiment skl-sd --help)",
  );
  const s = SKL_SD_SCALES[o.scale];
  return {
    ...o,
    maps: o.maps ?? s.maps,
    heldoutMaps: o.heldoutMaps ?? s.heldoutMaps,
    iterations: o.iterations ?? s.iterations,
    evalEpisodes: o.evalEpisodes ?? s.evalEpisodes,
    seeds: o.seeds ?? [...s.seeds],
  };
}
