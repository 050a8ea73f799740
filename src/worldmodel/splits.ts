import { z } from "zod";
import { createRandom, UserError } from "../core/index.ts";
import { type TraceSplit, TraceSplitSchema, type TraceStep } from "./trace.ts";

const SPLITS = TraceSplitSchema.options;

export const SplitFractionsSchema = z
  .object({
    build: z.number().positive().max(1),
    validation: z.number().nonnegative().max(1),
    test: z.number().nonnegative().max(1),
  })
  .strict()
  .refine((f) => Math.abs(f.build + f.validation + f.test - 1) < 1e-9, {
    message: "build + validation + test must be 1",
  });
export type SplitFractions = z.infer<typeof SplitFractionsSchema>;

export const DEFAULT_SPLIT_FRACTIONS: SplitFractions = { build: 0.7, validation: 0.15, test: 0.15 };

export const SplitGroupBySchema = z.enum(["episode", "task"]);
export type SplitGroupBy = z.infer<typeof SplitGroupBySchema>;

export const SplitOptionsSchema = z
  .object({
    seed: z.union([z.string().min(1), z.number().int()]),
    fractions: SplitFractionsSchema.default(DEFAULT_SPLIT_FRACTIONS),
    groupBy: SplitGroupBySchema.default("episode"),
  })
  .strict();
export type SplitOptions = z.input<typeof SplitOptionsSchema>;

const idsPerSplit = z.object({
  build: z.array(z.string()),
  validation: z.array(z.string()),
  test: z.array(z.string()),
});

/** The record of a split, for a manifest: episode ids (and the whole groups) per split, sorted. */
export const SplitManifestSchema = z
  .object({
    seed: z.union([z.string(), z.number()]),
    fractions: SplitFractionsSchema,
    groupBy: SplitGroupBySchema,
    episodes: idsPerSplit,
    /** The groups (episode ids or task ids) each split holds. */
    groups: idsPerSplit,
  })
  .strict();
export type SplitManifest = z.infer<typeof SplitManifestSchema>;

export interface TraceSplits {
  /** The steps of each split, in the order of the input. */
  steps: Record<TraceSplit, TraceStep[]>;
  manifest: SplitManifest;
}

/**
 * How many of `n` groups each split gets: largest remainders of `n * fraction`, ties in split order;
 * then every split with a positive fraction gets at least one group while the largest has two or more.
 */
export function splitCounts(n: number, fractions: SplitFractions): Record<TraceSplit, number> {
  const exact = SPLITS.map((s) => n * fractions[s]);
  const counts = exact.map(Math.floor);
  const order = SPLITS.map((_, i) => i).sort(
    (a, b) => exact[b]! - counts[b]! - (exact[a]! - counts[a]!) || a - b,
  );
  for (let k = 0, left = n - counts.reduce((a, b) => a + b, 0); k < left; k++) counts[order[k]!]!++;
  SPLITS.forEach((s, i) => {
    if (fractions[s] === 0 || counts[i]! > 0) return;
    const largest = counts.indexOf(Math.max(...counts));
    if (counts[largest]! < 2) return;
    counts[largest]!--;
    counts[i]!++;
  });
  return { build: counts[0]!, validation: counts[1]!, test: counts[2]! };
}

/**
 * Assigns whole episodes (or whole tasks) to build, validation and test: the distinct groups, sorted,
 * are shuffled by a generator seeded from `seed` and cut by `fractions` (counted in groups). The same
 * steps and seed give the same split whatever the input order; no group is in two splits.
 */
export function splitTraces(steps: ReadonlyArray<TraceStep>, options: SplitOptions): TraceSplits {
  const parsed = SplitOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw new UserError(
      "trace.split_options",
      `splitting traces: invalid options (${parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ")}). Fix: give a seed, fractions that are ≥ 0 and sum to 1 with build > 0, and groupBy episode or task`,
      { details: { options } },
    );
  const { seed, fractions, groupBy } = parsed.data;
  const groupOf = (s: TraceStep) => (groupBy === "task" ? s.taskId : s.episodeId);
  const groups = [...new Set(steps.map(groupOf))].sort();
  const shuffled = createRandom("trace-split", groupBy, seed).shuffle(groups);
  const counts = splitCounts(shuffled.length, fractions);
  const splitOfGroup = new Map<string, TraceSplit>();
  let next = 0;
  for (const split of SPLITS) {
    for (const group of shuffled.slice(next, next + counts[split])) splitOfGroup.set(group, split);
    next += counts[split];
  }
  const result: Record<TraceSplit, TraceStep[]> = { build: [], validation: [], test: [] };
  const episodes: Record<TraceSplit, Set<string>> = {
    build: new Set(),
    validation: new Set(),
    test: new Set(),
  };
  for (const step of steps) {
    const split = splitOfGroup.get(groupOf(step)) as TraceSplit;
    result[split].push(step);
    episodes[split].add(step.episodeId);
  }
  const sortedIds = (pick: (s: TraceSplit) => Iterable<string>) =>
    Object.fromEntries(SPLITS.map((s) => [s, [...pick(s)].sort()])) as Record<TraceSplit, string[]>;
  return {
    steps: result,
    manifest: {
      seed,
      fractions,
      groupBy,
      episodes: sortedIds((s) => episodes[s]),
      groups: sortedIds((s) => groups.filter((g) => splitOfGroup.get(g) === s)),
    },
  };
}
