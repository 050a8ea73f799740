import { z } from "zod";
import { UserError } from "../../core/index.ts";

/** A rate in [0, 1]; null where no transition counts (e.g. changed-field accuracy with nothing changed). */
const Rate = z.number().min(0).max(1);
const count = z.number().int().nonnegative();

export const RejectionCountsSchema = z
  .object({ applicability: count, proposal: count, validation: count })
  .strict();
export type RejectionCounts = z.infer<typeof RejectionCountsSchema>;

/** One system's next-state fidelity on held-out transitions (docs/worldmodel-eval.md gives the formulas). */
export const SystemFidelitySchema = z
  .object({
    /** The system (copy, retrieval, rules, gates, full), or an ablation's label. */
    system: z.string().min(1),
    transitions: count,
    exactMatch: Rate,
    fieldAccuracy: Rate,
    changedFieldAccuracy: Rate.nullable(),
    /** Transitions counted in changedFieldAccuracy (something changed in reality or in the prediction). */
    changedTransitions: count,
    rewardAccuracy: Rate,
    terminationAccuracy: Rate,
    textSimilarity: Rate,
    /** Share of transitions whose most likely step abstained ("unknown"). */
    unknownRate: Rate,
    rejections: RejectionCountsSchema,
    /** Group-size-weighted total-variation distance to the empirical next-state distribution. */
    totalVariation: Rate,
  })
  .strict();
export type SystemFidelity = z.infer<typeof SystemFidelitySchema>;

/** A metric of a system's fidelity that a chart or table can show (a rate in [0, 1], or null). */
export type FidelityMetric = Exclude<
  keyof SystemFidelity,
  "system" | "transitions" | "changedTransitions" | "rejections"
>;

/** How the held-out transitions group by (task, state, action) for the total-variation distance. */
export const TvGroupsSchema = z
  .object({
    groups: count,
    /** Groups with two or more transitions (only they can show a distribution). */
    repeatedGroups: count,
    meanGroupSize: z.number().nonnegative(),
    /**
     * The same weighted distance for the true distribution (from the caller's hook) against the same
     * empirical sample: the floor sampling noise sets; null when the truth is not known.
     */
    noiseFloor: Rate.nullable(),
  })
  .strict();
export type TvGroups = z.infer<typeof TvGroupsSchema>;

export const FidelityReportSchema = z
  .object({
    families: z.array(z.string()),
    transitions: count,
    episodes: count,
    tv: TvGroupsSchema,
    systems: z.array(SystemFidelitySchema),
  })
  .strict();
export type FidelityReport = z.infer<typeof FidelityReportSchema>;

export const MultiTurnReportSchema = z
  .object({
    system: z.string().min(1),
    episodes: count,
    /** Share of episodes whose simulated states matched the real ones at every step. */
    neverDiverged: Rate,
    diverged: count,
    /** 0-based index of the first step whose simulated next state differs, over diverging episodes. */
    meanFirstDivergence: z.number().nonnegative().nullable(),
    medianFirstDivergence: z.number().nonnegative().nullable(),
    /** consistency[k]: of the episodes with more than k steps, the share still matching after step k. */
    consistency: z.array(Rate),
  })
  .strict();
export type MultiTurnReport = z.infer<typeof MultiTurnReportSchema>;

export const AblationVariantSchema = z.enum(["evidence-only", "abstractions-only", "both"]);
export type AblationVariant = z.infer<typeof AblationVariantSchema>;

export const AblationReportSchema = z
  .object({
    variants: z.array(
      z
        .object({
          variant: AblationVariantSchema,
          useEvidence: z.boolean(),
          useAbstractions: z.boolean(),
          fidelity: SystemFidelitySchema,
        })
        .strict(),
    ),
  })
  .strict();
export type AblationReport = z.infer<typeof AblationReportSchema>;

export const LearningCurvePointSchema = z
  .object({
    /** Construction episodes the worldbook was built from. */
    episodes: z.number().int().positive(),
    transitions: count,
    systems: z.array(SystemFidelitySchema),
  })
  .strict();
export const LearningCurveSchema = z
  .object({
    seed: z.union([z.string(), z.number()]),
    /** The construction episodes, in the seeded order the sizes take them from. */
    order: z.array(z.string()),
    points: z.array(LearningCurvePointSchema),
  })
  .strict();
export type LearningCurvePoint = z.infer<typeof LearningCurvePointSchema>;
export type LearningCurve = z.infer<typeof LearningCurveSchema>;

/** Everything the evaluation measured on one family (parts not run are absent). */
export const FamilyEvalReportSchema = z
  .object({
    family: z.string().min(1),
    fidelity: FidelityReportSchema,
    multiTurn: z.array(MultiTurnReportSchema).optional(),
    ablations: AblationReportSchema.optional(),
    learningCurve: LearningCurveSchema.optional(),
  })
  .strict();
export type FamilyEvalReport = z.infer<typeof FamilyEvalReportSchema>;

/** A family report read back from JSON (e.g. a report file); a UserError naming what is wrong otherwise. */
export function parseFamilyEvalReport(value: unknown, where = "the report"): FamilyEvalReport {
  const parsed = FamilyEvalReportSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new UserError(
    "worldmodel_eval.invalid_report",
    `reading a world-model evaluation report from ${where}: ${issues.join("; ")}. Fix: regenerate it with \`rehearsal worldbook eval\`.`,
    { cause: parsed.error },
  );
}
