import { z } from "zod";
import type { KnowledgeEntry } from "./knowledge-entry.ts";
import { Count } from "./knowledge-fields.ts";
import { fraction, round6 } from "./statistics.ts";

/** One simulated branch rooted at the real state s_t (localized simulation, SKL-RL). */
export const BranchSchema = z
  .object({
    branch: Count,
    /** Agent moves of the branch (the first is the action the branch evaluates). */
    moves: z.array(z.string()).min(1),
    /** Opponent replies the environment played in the branch. */
    replies: z.array(z.string()),
    /** How the simulation policy chose each agent move ("engine e2e4" / "random e2e4"). */
    raws: z.array(z.string()),
    /** The episode status where the branch stopped (H moves or a terminal state). */
    status: z.enum(["running", "won", "lost", "draw", "truncated"]),
    /** Sum of the environment's rewards in the branch (+1 win, -1 loss, 0 otherwise). */
    return: z.number(),
  })
  .strict();
export type Branch = z.infer<typeof BranchSchema>;

/** Aggregated outcomes of the branches that started with one action. */
export const SimActionStatsSchema = z
  .object({
    action: z.string(),
    n: Count,
    wins: Count,
    losses: Count,
    draws: Count,
    /** Branches that reached H moves (or the move limit) undecided. */
    open: Count,
    returnSum: z.number(),
    meanReturn: z.number(),
  })
  .strict();
export type SimActionStats = z.infer<typeof SimActionStatsSchema>;

/** `fields` of a z_hat entry (writer `skl-rl-simulation`); counts accumulate over the entry's versions. */
export const SimulationKnowledgeFieldsSchema = z
  .object({
    kind: z.literal("simulation"),
    actions: z.record(z.string(), SimActionStatsSchema),
    /** Best mean return over the simulated first actions; null when nothing was simulated. */
    value: z.number().nullable(),
    /** The unique action with the best mean return; null when none or tied. */
    bestAction: z.string().nullable(),
    /** Actions sharing the best mean return (sorted). */
    tiedBest: z.array(z.string()),
    branches: Count,
    budget: z.object({ n: z.number().int().positive(), h: z.number().int().positive() }).strict(),
  })
  .strict();
export type SimulationKnowledgeFields = z.infer<typeof SimulationKnowledgeFieldsSchema>;

export const SIMULATION_WRITER = "skl-rl-simulation";
/** The text of z when a state has no knowledge yet (the distillation prior). */
export const EMPTY_KNOWLEDGE_TEXT = "No knowledge about this position yet.";

function emptyStats(action: string): SimActionStats {
  return { action, n: 0, wins: 0, losses: 0, draws: 0, open: 0, returnSum: 0, meanReturn: 0 };
}

/**
 * z_hat for s_t: the prior entry's counts (when it is a simulation entry) plus this step's branches,
 * per first action; value = best mean return, bestAction only when it is unique.
 */
export function aggregateBranches(
  prior: KnowledgeEntry | undefined,
  branches: ReadonlyArray<Branch>,
  budget: { n: number; h: number },
): SimulationKnowledgeFields {
  const old = SimulationKnowledgeFieldsSchema.safeParse(prior?.fields);
  const actions: Record<string, SimActionStats> = old.success ? structuredClone(old.data.actions) : {};
  let count = old.success ? old.data.branches : 0;
  for (const b of branches) {
    const first = b.moves[0] as string;
    const s = actions[first] ?? emptyStats(first);
    s.n += 1;
    if (b.status === "won") s.wins += 1;
    else if (b.status === "lost") s.losses += 1;
    else if (b.status === "draw") s.draws += 1;
    else s.open += 1;
    s.returnSum = round6(s.returnSum + b.return);
    actions[first] = s;
    count += 1;
  }
  const sorted: Record<string, SimActionStats> = {};
  let value: number | null = null;
  for (const name of Object.keys(actions).sort()) {
    const s = actions[name] as SimActionStats;
    const mean = s.n === 0 ? 0 : round6(s.returnSum / s.n);
    sorted[name] = { ...s, meanReturn: mean };
    if (value === null || mean > value) value = mean;
  }
  const tiedBest = Object.values(sorted)
    .filter((s) => value !== null && s.meanReturn === value)
    .map((s) => s.action);
  const bestAction = tiedBest.length === 1 ? (tiedBest[0] as string) : null;
  return { kind: "simulation", actions: sorted, value, bestAction, tiedBest, branches: count, budget };
}

function verdictWord(s: SimActionStats): string {
  if (s.wins === s.n) return "wins in every simulation";
  if (s.losses === s.n) return "loses in every simulation";
  if (s.wins > 0 && s.losses === 0) return "can win and never lost";
  if (s.losses > 0 && s.wins === 0) return "risks a loss and never won";
  if (s.wins > 0) return "mixed outcomes";
  return "undecided within the horizon";
}

/** The declarative text of z_hat, e.g. "After 3 simulated continuations (N 3, H 2) from <state> ...". */
export function describeSimulationKnowledge(state: string, f: SimulationKnowledgeFields): string {
  const parts = Object.values(f.actions).map(
    (s) =>
      `${s.action}: won ${fraction(s.wins, s.n)}, lost ${fraction(s.losses, s.n)}, drawn ${s.draws}, ` +
      `undecided ${s.open}, mean return ${s.meanReturn.toFixed(2)} (${verdictWord(s)})`,
  );
  const best =
    f.bestAction !== null
      ? `Best move by simulation: ${f.bestAction} (mean return ${(f.value ?? 0).toFixed(2)}).`
      : f.tiedBest.length > 1
        ? `No single best move: ${f.tiedBest.join(", ")} tie at mean return ${(f.value ?? 0).toFixed(2)}.`
        : "No move was simulated.";
  return (
    `After ${f.branches} simulated continuations (budget N ${f.budget.n}, H ${f.budget.h}) from ${state}: ` +
    `${parts.join("; ") || "none"}. ${best}`
  );
}
