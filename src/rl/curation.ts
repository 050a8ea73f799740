import { z } from "zod";
import { createRandom, formatIssues, readJsonFile, UserError } from "../core/index.ts";
import { parseOptions } from "./parse-options.ts";

/**
 * Data curation (SEEDS.md §4): each task's zero-shot success rate over K episodes; a task above `max`
 * or below `min` is dropped (a rate on a threshold is kept), and a seeded sample of the kept ones is
 * what `rl rollouts --curation` plays.
 */
export const CurationThresholdsSchema = z
  .object({
    /** Drop a task whose zero-shot success rate is above this (already solved). */
    max: z.number().min(0).max(1).default(0.8),
    /** Drop a task whose zero-shot success rate is below this (no learning signal). */
    min: z.number().min(0).max(1).default(0.05),
  })
  .strict()
  .refine((t) => t.min <= t.max, { message: "min must be ≤ max", path: ["min"] });
export type CurationThresholds = z.infer<typeof CurationThresholdsSchema>;

/** The validated thresholds (a bad one is a UserError `rl.curation_options` naming it). */
export function parseCurationThresholds(input: unknown): CurationThresholds {
  return parseOptions(CurationThresholdsSchema, input, {
    code: "curation_options",
    root: "curation",
    hint: "thresholds are success rates in [0, 1] with min ≤ max (defaults 0.05 and 0.8)",
  });
}

/** One task's measured zero-shot success: over its complete episodes (infra failures excluded). */
export interface TaskRate {
  taskId: string;
  episodes: number;
  successes: number;
}

const MeasuredSchema = z.object({
  taskId: z.string().min(1),
  episodes: z.number().int().nonnegative(),
  successes: z.number().int().nonnegative(),
  /** successes / episodes; null when no episode completed. */
  rate: z.number().min(0).max(1).nullable(),
});

export const CurationManifestSchema = z
  .object({
    kind: z.literal("rehearsal.rl-curation"),
    version: z.literal(1),
    env: z.string().min(1),
    suite: z.string().nullable(),
    policy: z.string().min(1),
    /** K, episodes per task of the measuring run. */
    episodes: z.number().int().positive(),
    /** Seed of the measuring run and of the sample. */
    seed: z.string(),
    /** The `run` that measured the rates (`rehearsal runs show RUN`). */
    run: z.string().min(1),
    thresholds: z.object({ max: z.number().min(0).max(1), min: z.number().min(0).max(1) }),
    kept: z.array(MeasuredSchema),
    dropped: z.array(MeasuredSchema.extend({ reason: z.enum(["above_max", "below_min", "no_episodes"]) })),
    /** N requested (null: all kept) and the tasks taken, in suite order: what `rl rollouts` plays. */
    sample: z.object({ size: z.number().int().positive().nullable(), tasks: z.array(z.string().min(1)) }),
  })
  .strict();
export type CurationManifest = z.infer<typeof CurationManifestSchema>;

export interface CurationSpec {
  env: string;
  suite: string | null;
  policy: string;
  episodes: number;
  seed: string;
  run: string;
  thresholds: CurationThresholds;
  /** N: sample this many of the kept tasks (seeded); undefined: all of them. */
  sample?: number;
}

/** Where a rate falls: kept, or the reason it is dropped (a rate exactly on a threshold is kept). */
export function curationDecision(
  rate: number | null,
  t: CurationThresholds,
): "kept" | "above_max" | "below_min" | "no_episodes" {
  if (rate === null) return "no_episodes";
  if (rate > t.max) return "above_max";
  if (rate < t.min) return "below_min";
  return "kept";
}

/**
 * The manifest of `rates` (suite order): kept and dropped tasks with their rates and reasons, and a
 * sample of N kept tasks drawn with `createRandom("rl-curation", seed)` — the same seed and rates
 * give the same sample — listed in suite order (all kept ones when N is not given or ≥ their count).
 */
export function curateTasks(rates: ReadonlyArray<TaskRate>, spec: CurationSpec): CurationManifest {
  const kept: CurationManifest["kept"] = [];
  const dropped: CurationManifest["dropped"] = [];
  for (const r of rates) {
    const rate = r.episodes === 0 ? null : r.successes / r.episodes;
    const measured = { taskId: r.taskId, episodes: r.episodes, successes: r.successes, rate };
    const decision = curationDecision(rate, spec.thresholds);
    if (decision === "kept") kept.push(measured);
    else dropped.push({ ...measured, reason: decision });
  }
  const ids = kept.map((k) => k.taskId);
  const n = spec.sample ?? ids.length;
  const chosen = new Set(createRandom("rl-curation", spec.seed).shuffle(ids).slice(0, n));
  return CurationManifestSchema.parse({
    kind: "rehearsal.rl-curation",
    version: 1,
    env: spec.env,
    suite: spec.suite,
    policy: spec.policy,
    episodes: spec.episodes,
    seed: spec.seed,
    run: spec.run,
    thresholds: { max: spec.thresholds.max, min: spec.thresholds.min },
    kept,
    dropped,
    sample: { size: spec.sample ?? null, tasks: ids.filter((id) => chosen.has(id)) },
  });
}

/** Reads and validates a curation manifest; a missing, unreadable or invalid file is a UserError naming it. */
export function readCurationManifest(path: string): CurationManifest {
  const fix = "write one with `rehearsal rl curate ... --out FILE.json`";
  const unreadable = (e: Error) =>
    new UserError("rl.curation_invalid", `cannot read curation manifest ${path}: ${e.message}; ${fix}`);
  return readJsonFile(path, CurationManifestSchema, {
    unreadable,
    syntax: unreadable,
    invalid: (error) =>
      new UserError(
        "rl.curation_invalid",
        `curation manifest ${path} does not validate (${formatIssues(error.issues)}); ${fix}`,
        { details: { issues: error.issues } },
      ),
  });
}

/** The manifest's sampled tasks (what `rl rollouts --curation` plays); none left is a UserError. */
export function curatedTaskIds(manifest: CurationManifest, path: string): string[] {
  if (manifest.sample.tasks.length === 0)
    throw new UserError(
      "rl.curation_empty",
      `curation manifest ${path} keeps no task (every rate was outside [${manifest.thresholds.min}, ${manifest.thresholds.max}]); curate with wider --min/--max or other tasks`,
    );
  return manifest.sample.tasks;
}

/**
 * `error` as a curation error when it is the suite refusing a task of the manifest at `path`
 * (`task.unknown`): `rl.curation_unknown_tasks`, naming the manifest and the fix. Else `error`.
 */
export function curationTaskError(error: unknown, path: string): unknown {
  if (!(error instanceof UserError) || error.code !== "task.unknown") return error;
  return new UserError(
    "rl.curation_unknown_tasks",
    `curation manifest ${path} names a task that is not in this environment's suite (${error.message}); curate with the same --env and --suite`,
    { cause: error },
  );
}
