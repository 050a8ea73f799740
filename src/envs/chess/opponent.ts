import { EnvironmentError } from "../../core/errors.ts";
import type { OpponentPolicy } from "./config.ts";
import { type Episode, onSolutionLine } from "./episode.ts";
import { legalUciMoves } from "./rules.ts";
import type { StockfishPool } from "./stockfish-pool.ts";

/** The engine, as the opponent needs it: the best move after `moves` from `fen`. */
export type BestMoveSource = (fen: string, moves: ReadonlyArray<string>) => Promise<string | null>;

/**
 * The opponent's reply in a running episode (the side to move is the opponent and has a legal move).
 * `solution` plays the listed reply while the line was followed, else `offLine`.
 */
export async function opponentMove(
  ep: Episode,
  policy: OpponentPolicy,
  offLine: Exclude<OpponentPolicy, "solution">,
  engine: () => StockfishPool,
): Promise<string> {
  const legal = legalUciMoves(ep.chess);
  if (legal.length === 0) {
    throw new EnvironmentError("chess.no_reply", `The opponent has no legal move in ${ep.chess.fen()}.`);
  }
  let kind: Exclude<OpponentPolicy, "solution"> = offLine;
  if (policy === "solution") {
    const listed = ep.puzzle.moves[ep.history.length];
    if (onSolutionLine(ep) && listed !== undefined && legal.includes(listed)) return listed;
  } else {
    kind = policy;
  }
  switch (kind) {
    case "first-legal":
      return legal[0] as string;
    case "random":
      return ep.random.pick(legal);
    case "stockfish": {
      const move = await engine().bestMove(ep.puzzle.fen, ep.history);
      if (move === null || !legal.includes(move)) {
        throw new EnvironmentError(
          "chess.engine_bad_move",
          `Stockfish answered ${move ?? "(none)"} in ${ep.chess.fen()}, which is not a legal move there.`,
        );
      }
      return move;
    }
  }
}
