import { z } from "zod";
import { KlDirectionSchema } from "../../export/skl-rl-datasets.ts";
import { parseKnowledgeOptions } from "../../knowledge/errors.ts";
import { SKL_EXPERT_RATES } from "../../policies/chess-simulation-policy.ts";

/** Options of `runChessSklRl` (strict; every field has a default except `outDir`). */
export const SklChessOptionsSchema = z
  .object({
    /** Play these puzzle ids (in this order); otherwise the first `puzzleCount` of the filtered suite. */
    puzzleIds: z.array(z.string().min(1)).min(1).optional(),
    puzzleCount: z.number().int().positive().max(1000).default(10),
    /** Exclusive upper bound on the puzzle rating (the SKL reference: < 1000). */
    maxRating: z.number().int().default(1000),
    /** A Lichess puzzle CSV; default: the built-in puzzles. */
    csvPath: z.string().min(1).optional(),
    /** Branches per real step (N). */
    n: z.number().int().positive().max(64).default(3),
    /** Agent moves per branch (H). */
    h: z.number().int().positive().max(20).default(2),
    /** Simulation (and fallback acting) policies: engine-best with this probability, else random legal. */
    expertRates: z
      .array(z.number().min(0).max(1))
      .min(1)
      .default([...SKL_EXPERT_RATES]),
    /** Stockfish depth (one thread, fixed depth: deterministic). */
    engineDepth: z.number().int().min(1).max(30).default(4),
    /** Agent moves per episode (the SKL reference: 10). */
    maxAgentMoves: z.number().int().positive().max(100).default(10),
    seed: z.number().int().nonnegative().default(0),
    outDir: z.string().min(1),
    /** The objective the distillation pairs are written for (recorded in each pair and the manifest). */
    klDirection: KlDirectionSchema.default("forward"),
    /** Also play each puzzle with the acting policy alone (no simulation) for comparison. */
    baseline: z.boolean().default(true),
  })
  .strict();
export type SklChessOptionsInput = z.input<typeof SklChessOptionsSchema>;
export type SklChessOptions = z.output<typeof SklChessOptionsSchema>;

/** Validates the options; throws a `KnowledgeOptionsError` naming each problem. */
export function parseSklChessOptions(input: unknown): SklChessOptions {
  return parseKnowledgeOptions(SklChessOptionsSchema, input, "SKL-RL chess options");
}

/** A stable, file-name-safe label of an expert rate: 0.5 → "rate-0.500". */
export function rateLabel(rate: number): string {
  return `rate-${rate.toFixed(3)}`;
}
