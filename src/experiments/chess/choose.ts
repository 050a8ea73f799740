import type { Observation } from "../../core/observation.ts";
import type { Policy } from "../../core/policy.ts";
import { createRandom, type Random } from "../../core/random.ts";
import type { ChessEnvironment } from "../../envs/chess/chess-environment.ts";
import { legalUciMovesFromFen } from "../../envs/chess/rules.ts";
import type { SimulationKnowledgeFields } from "../../knowledge/simulation-knowledge.ts";
import type { SklStep } from "./records.ts";

/** What acting needs: the real environment (for the task), the acting policy and the stable keys. */
export interface ActingContext {
  real: ChessEnvironment;
  actingPolicy: Policy;
  puzzleId: string;
  expertRate: number;
  seed: number;
}

/** The acting policy's generator at real step `step` (keyed by seed, rate, puzzle, step). */
export function actingRandom(ctx: Omit<ActingContext, "real" | "actingPolicy">, step: number): Random {
  return createRandom("skl-rl", "act", ctx.seed, ctx.expertRate, ctx.puzzleId, step);
}

/** The acting policy's move at real step `step` (drawn from `actingRandom`). */
export async function actingMove(
  policy: Policy,
  ctx: ActingContext,
  observation: Observation,
  step: number,
): Promise<string | null> {
  const random = actingRandom(ctx, step);
  const task = ctx.real.suite.get(ctx.puzzleId);
  const proposal = await policy.propose(
    { task, observation, history: [], stepIndex: step },
    { n: 1, temperature: 1, random },
  );
  const action = proposal.candidates[0]?.action;
  return action?.type === "uci" ? action.move : null;
}

function legalMoves(observation: Observation): string[] {
  const fen = observation.data?.fen;
  return typeof fen === "string" ? (legalUciMovesFromFen(fen) ?? []) : [];
}

/**
 * Acting from z_hat. A move never simulated counts as value 0 (undecided).
 * - The unique best simulated move, when its mean return is ≥ 0, is played (source `z_hat`).
 * - Otherwise (ties, or every simulated move did worse than undecided) the acting policy proposes; a
 *   proposal that z_hat knows to be worse than the best known-or-unknown value is replaced: by the first
 *   tied-best move when the best value is ≥ 0, else by a random move that was not simulated (the best
 *   simulated move when every legal move was simulated).
 */
export async function chooseMove(
  ctx: ActingContext,
  fields: SimulationKnowledgeFields,
  observation: Observation,
  step: number,
): Promise<{ move: string | null; source: SklStep["actionSource"] }> {
  const value = fields.value;
  if (fields.bestAction !== null && value !== null && value >= 0) {
    return { move: fields.bestAction, source: "z_hat" };
  }
  const proposed = await actingMove(ctx.actingPolicy, ctx, observation, step);
  const known = proposed === null ? undefined : fields.actions[proposed];
  const target = Math.max(value ?? 0, 0);
  if (!known || known.meanReturn >= target) return { move: proposed, source: "policy" };
  if (value !== null && value >= 0 && fields.tiedBest[0] !== undefined) {
    return { move: fields.tiedBest[0], source: "z_hat" };
  }
  const fresh = legalMoves(observation).filter((m) => fields.actions[m] === undefined);
  if (fresh.length > 0) {
    const random = createRandom("skl-rl", "unsimulated", ctx.seed, ctx.expertRate, ctx.puzzleId, step);
    return { move: random.pick(fresh), source: "z_hat" };
  }
  return { move: fields.tiedBest[0] ?? proposed, source: "z_hat" };
}
