import type { VerifierResult } from "../../core/verifier.ts";
import type { Episode } from "./episode.ts";

/**
 * Chess puzzle rewards (SKL reference semantics), decided after every agent move:
 * - **+1 (won, terminated)**: the agent's move checkmates the opponent (any mating move counts, on or off
 *   the listed line), or the agent has played every listed solver move with the opponent having played
 *   every listed reply (the puzzle's solution line is complete, as Lichess scores it).
 * - **−1 (lost, terminated)**: the opponent's reply checkmates the agent.
 * - **0, terminated**: a draw (stalemate, insufficient material, threefold repetition, fifty moves).
 * - **0, truncated**: `maxAgentMoves` (default 10) agent move attempts without an end; illegal and
 *   invalid actions count as attempts but leave the board unchanged.
 * "The listed line" means every move so far, the opponent's included, is the puzzle's: with the
 * `solution` opponent the replies always follow it while the agent does; with `stockfish`, `random` or
 * `first-legal` a reply that differs from the listed one leaves the line, and only checkmate wins then.
 * The step reward is the terminal reward on the final step and 0 before it; `evaluate()` returns the
 * same number for the current state (0 while running). Success means reward 1.
 */
export function verdict(ep: Episode): VerifierResult {
  const metrics = { agentMoves: ep.agentMoves, plies: ep.history.length - 1 };
  switch (ep.status) {
    case "won":
      return { reward: 1, success: true, reason: `solved: ${ep.reason}`, metrics };
    case "lost":
      return { reward: -1, success: false, reason: `lost: ${ep.reason}`, metrics };
    case "draw":
      return { reward: 0, success: false, reason: ep.reason, metrics };
    case "truncated":
      return { reward: 0, success: false, reason: ep.reason, metrics };
    default:
      return {
        reward: 0,
        success: false,
        reason: `not solved yet after ${ep.agentMoves} of ${ep.maxAgentMoves} agent moves`,
        metrics,
      };
  }
}
