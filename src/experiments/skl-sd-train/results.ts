import { z } from "zod";
import { ExperimentStatusSchema } from "../interrupt.ts";

/** The dataset mixes the experiment trains the linear policy on. */
export const SD_MIXES = ["base", "base+distill", "base+distill+reflect"] as const;
/**
 * Untrained references, evaluated the same way: `random` (uniform over the four moves) and `oracle`
 * (the environment's shortest safe path on the non-slippery map, replanned each step).
 */
export const SD_REFERENCES = ["random", "oracle"] as const;
/**
 * The data-size controls: D_base plus extra D_base (the same pipeline run again with new seeds, only its
 * D_base kept) with exactly as many examples, and the same total weight, as the mix each one matches:
 * `base+base(=distill)` matches `base+distill`, `base+base(=distill+reflect)` matches
 * `base+distill+reflect`. A gain of a mix over its control is the data's kind, not its amount.
 */
export const SD_CONTROLS = ["base+base(=distill)", "base+base(=distill+reflect)"] as const;
/** The mix each control matches in size. */
export const CONTROL_OF = {
  "base+base(=distill)": "base+distill",
  "base+base(=distill+reflect)": "base+distill+reflect",
} as const satisfies Record<(typeof SD_CONTROLS)[number], (typeof SD_MIXES)[number]>;
/** Whether a row is one of the size-matched D_base controls. */
export const isControl = (mix: string): mix is (typeof SD_CONTROLS)[number] =>
  (SD_CONTROLS as ReadonlyArray<string>).includes(mix);
export const SD_ROWS = [...SD_REFERENCES, ...SD_MIXES, ...SD_CONTROLS] as const;
export type SdRowName = (typeof SD_ROWS)[number];

const SplitScoreSchema = z
  .object({
    maps: z.number().int().nonnegative(),
    episodes: z.number().int().nonnegative(),
    successes: z.number().int().nonnegative(),
    pass1: z.number().min(0).max(1),
    mapsSolved: z.number().int().nonnegative(),
  })
  .strict()
  .refine(
    (s) =>
      s.successes <= s.episodes && Math.abs(s.pass1 - (s.episodes ? s.successes / s.episodes : 0)) < 1e-12,
    {
      message: "pass1 must be successes / episodes",
    },
  );

/** A count per SKL-SD dataset. */
const DatasetCountsSchema = z
  .object({ base: z.number().int(), distill: z.number().int(), reflect: z.number().int() })
  .strict();

export const SklSdRowSchema = z
  .object({
    seed: z.number().int(),
    mix: z.enum(SD_ROWS),
    /**
     * Examples trained on, per dataset (reflect: the projected (state, best action) examples; extraBase:
     * a control's extra D_base examples, only on the control rows).
     */
    examples: DatasetCountsSchema.extend({ extraBase: z.number().int().nonnegative().optional() }),
    /** Sum of the example weights trained on (0: nothing trained). */
    totalWeight: z.number().nonnegative(),
    /** Final weighted cross-entropy of the SFT (null: nothing trained). */
    finalLoss: z.number().nullable(),
    train: SplitScoreSchema,
    heldout: SplitScoreSchema,
  })
  .strict();
export type SklSdRow = z.infer<typeof SklSdRowSchema>;

export const SklSdSeedDataSchema = z
  .object({
    seed: z.number().int(),
    /** Records of the pipeline's three files. */
    records: DatasetCountsSchema,
    /** D_reflect records whose text names a best action (the projected examples). */
    reflectProjected: z.number().int(),
    baseSuccesses: z.number().int(),
    baseEpisodes: z.number().int(),
    dataDir: z.string(),
    /** The extra D_base of the size-matched controls. */
    control: z
      .object({
        /** The experiment's other seeds whose pipelines' D_base comes first, in this order. */
        fromSeeds: z.array(z.number().int()),
        borrowedRecords: z.number().int().nonnegative(),
        /** Seeds of the extra pipeline runs after those (their files are under `dataDir/control-K/`). */
        pipelineSeeds: z.array(z.string()),
        /** Extra D_base records at hand (borrowed + new runs), and the most a control needs (distill + projected reflect). */
        baseRecords: z.number().int().nonnegative(),
        needed: z.number().int().nonnegative(),
        /** Every control got exactly its mix's example count (false: the runs ran out, see docs). */
        matched: z.boolean(),
      })
      .strict(),
  })
  .strict();

const SummarySchema = z
  .object({
    mix: z.enum(SD_ROWS),
    trainMean: z.number(),
    heldoutMean: z.number(),
    heldoutMin: z.number(),
    heldoutMax: z.number(),
  })
  .strict();

export const SklSdResultsSchema = z
  .object({
    experiment: z.literal("skl-sd"),
    version: z.literal(1),
    /** `running` while parts are still being added, `interrupted` after a stop request (the completed rows). */
    status: ExperimentStatusSchema.default("complete"),
    config: z.record(z.string(), z.unknown()),
    maps: z
      .object({ train: z.array(z.string()), heldout: z.array(z.string()), heldoutRejected: z.number().int() })
      .strict(),
    data: z.array(SklSdSeedDataSchema),
    rows: z.array(SklSdRowSchema),
    summary: z.array(SummarySchema),
  })
  .strict();
export type SklSdResults = z.infer<typeof SklSdResultsSchema>;

function mean(xs: ReadonlyArray<number>): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Per mix: mean pass@1 over seeds on the training maps, and mean/min/max on the held-out maps. */
export function summarize(rows: ReadonlyArray<SklSdRow>): SklSdResults["summary"] {
  return SD_ROWS.flatMap((mix) => {
    const of = rows.filter((r) => r.mix === mix);
    if (of.length === 0) return [];
    const held = of.map((r) => r.heldout.pass1);
    return {
      mix,
      trainMean: mean(of.map((r) => r.train.pass1)),
      heldoutMean: mean(held),
      heldoutMin: held.length ? Math.min(...held) : 0,
      heldoutMax: held.length ? Math.max(...held) : 0,
    };
  });
}
