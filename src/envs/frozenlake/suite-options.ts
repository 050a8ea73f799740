import { z } from "zod";
import { SplitSchema } from "../../core/task.ts";
import { MapRowsSchema } from "./map.ts";
import { DEFAULT_FROZEN_PROBABILITY } from "./random-map.ts";

/**
 * A group of seeded random maps, ids `random-<size>-<index>` for index 0..count-1. Map `index` is
 * `randomMapForSeed(size, "<seedBase>|<index>", frozenProbability)`, so the same options give the same
 * maps everywhere. The last `heldoutCount` maps (default: half, rounded down) form the held-out split.
 */
export const RandomMapGroupSchema = z
  .object({
    size: z.number().int().min(2).max(64).default(5),
    count: z.number().int().min(0).max(10_000).default(100),
    seedBase: z.union([z.string().min(1), z.number().int()]).default("rehearsal"),
    frozenProbability: z.number().gt(0).max(1).default(DEFAULT_FROZEN_PROBABILITY),
    heldoutCount: z.number().int().min(0).optional(),
  })
  .strict()
  .refine((g) => g.heldoutCount === undefined || g.heldoutCount <= g.count, {
    message: "heldoutCount cannot exceed count",
    path: ["heldoutCount"],
  });
export type RandomMapGroup = z.output<typeof RandomMapGroupSchema>;

/** A map given as rows (Gymnasium letters). */
export const CustomMapSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "ids use letters, digits, '.', '_' and '-'"),
    rows: MapRowsSchema,
    split: SplitSchema.default("train"),
  })
  .strict();

/**
 * Which maps the FrozenLake suite holds. Defaults: both standard maps (train) and the SKL paper's
 * setup, 100 random 5x5 maps, 50 train and 50 held out.
 */
export const FrozenLakeSuiteOptionsSchema = z
  .object({
    name: z.string().min(1).default("frozenlake"),
    standard: z.array(z.enum(["4x4", "8x8"])).default(["4x4", "8x8"]),
    standardSplit: SplitSchema.default("train"),
    randomMaps: z
      .union([RandomMapGroupSchema, z.array(RandomMapGroupSchema)])
      .prefault({})
      .transform((g) => (Array.isArray(g) ? g : [g])),
    maps: z.array(CustomMapSchema).default([]),
  })
  .strict();
export type FrozenLakeSuiteOptionsInput = z.input<typeof FrozenLakeSuiteOptionsSchema>;
export type FrozenLakeSuiteOptions = z.output<typeof FrozenLakeSuiteOptionsSchema>;
