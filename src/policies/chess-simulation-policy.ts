import { z } from "zod";
import type { Action } from "../core/action.ts";
import { UserError } from "../core/errors.ts";
import type { Observation } from "../core/observation.ts";
import type { Candidate, Policy, PolicyContext, Proposal, ProposeOptions } from "../core/policy.ts";
import type { Random } from "../core/random.ts";
import { legalUciMovesFromFen } from "../envs/chess/rules.ts";
import { noActionCandidate } from "./no-action.ts";

/** What the policy needs from an engine (a `StockfishPool` fits). */
export interface BestMoveEngine {
  bestMove(fen: string, moves?: ReadonlyArray<string>): Promise<string | null>;
}

/** The SKL-RL simulation expert rates: 1/2, 1/3 and 1/6. */
export const SKL_EXPERT_RATES = [1 / 2, 1 / 3, 1 / 6] as const;

export interface MixedEnginePolicyOptions {
  /** Probability of playing the engine's best move; otherwise a uniformly random legal move. */
  expertRate: number;
  pool: BestMoveEngine;
  /**
   * A generator to draw from instead of the per-call `ProposeOptions.random` (for simulation loops that
   * keep one stream). Default: the per-call generator.
   */
  random?: Random;
  name?: string;
}

function legalMovesOf(observation: Observation): { fen: string | undefined; moves: string[] } {
  const fen = typeof observation.data?.fen === "string" ? observation.data.fen : undefined;
  const fromFen = fen === undefined ? undefined : legalUciMovesFromFen(fen);
  // Not a FEN: fall back to the listed actions.
  if (fromFen !== undefined) return { fen, moves: fromFen };
  const moves = (observation.legalActions ?? []).flatMap((a) => (a.type === "uci" ? [a.move] : []));
  return { fen, moves };
}

/**
 * A chess simulation policy for SKL-RL: each candidate is the engine's best move with probability
 * `expertRate`, else a uniformly random legal move (all legal moves, from `observation.data.fen`; the
 * listed `legalActions` when there is no FEN). Temperature is ignored. The engine is asked at most once
 * per `propose` call. With no legal move every candidate is `null` with a parse error.
 */
export function createMixedEnginePolicy(options: MixedEnginePolicyOptions): Policy {
  const rate = z.number().min(0).max(1).safeParse(options.expertRate);
  if (!rate.success) {
    throw new UserError(
      "chess.bad_expert_rate",
      `createMixedEnginePolicy needs expertRate in [0, 1] (SKL uses 1/2, 1/3, 1/6); got ${options.expertRate}.`,
    );
  }
  const expertRate = rate.data;
  return {
    name: options.name ?? `mixed-engine(${expertRate.toFixed(3)})`,
    async propose(context: PolicyContext, propose: ProposeOptions): Promise<Proposal> {
      const random = options.random ?? propose.random;
      const { fen, moves } = legalMovesOf(context.observation);
      const candidates: Candidate[] = [];
      let best: string | null | undefined;
      for (let i = 0; i < propose.n; i++) {
        if (moves.length === 0) {
          candidates.push(noActionCandidate("no_legal_move", "the position has no legal move"));
          continue;
        }
        const expert = random.next() < expertRate;
        let move: string;
        let raw: string;
        if (expert && fen !== undefined) {
          if (best === undefined) best = await options.pool.bestMove(fen);
          move = best !== null && moves.includes(best) ? best : random.pick(moves);
          raw = best !== null && move === best ? `engine ${move}` : `random ${move}`;
        } else {
          move = random.pick(moves);
          raw = `random ${move}`;
        }
        const action: Action = { type: "uci", move };
        candidates.push({ action, raw });
      }
      return { candidates };
    },
  };
}
