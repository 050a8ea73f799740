// The step's legal-move list is read from chess.js's internal move generator (the verbose API costs
// most of a step); it must equal the public verbose API's list in every position, promotions,
// castling, en passant and checks included.
import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import { createRandom } from "../../../src/core/index.ts";
import { BUILTIN_PUZZLES_CSV } from "../../../src/envs/chess/builtin-puzzles.ts";
import { legalUciMoves, legalUciMovesVerbose, parsePuzzlesCsv } from "../../../src/envs/chess/index.ts";

const SPECIAL_FENS = [
  "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", // castling both ways
  "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", // en passant
  "8/P6k/8/8/8/8/6Kp/8 w - - 0 1", // white promotes
  "8/P6k/8/8/8/8/6Kp/8 b - - 0 1", // black promotes
  "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1", // in check
  "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", // stalemate: no moves
];

describe("chess legal moves", () => {
  it("the fast list equals the verbose API's in special positions", () => {
    for (const fen of SPECIAL_FENS) {
      const chess = new Chess(fen);
      expect(legalUciMoves(chess), fen).toEqual(legalUciMovesVerbose(chess));
    }
    expect(legalUciMoves(new Chess(SPECIAL_FENS[2]))).toContain("a7a8q");
    expect(legalUciMoves(new Chess(SPECIAL_FENS[1]))).toContain("e5f6");
  });

  it("the fast list equals the verbose API's along random games from every built-in puzzle", () => {
    const random = createRandom("test", "chess-legal-moves");
    let positions = 0;
    for (const puzzle of parsePuzzlesCsv(BUILTIN_PUZZLES_CSV)) {
      const chess = new Chess(puzzle.fen);
      for (let ply = 0; ply < 40; ply++) {
        const fast = legalUciMoves(chess);
        expect(fast, chess.fen()).toEqual(legalUciMovesVerbose(chess));
        positions++;
        if (fast.length === 0) break;
        const move = random.pick(fast);
        chess.move({
          from: move.slice(0, 2),
          to: move.slice(2, 4),
          ...(move[4] ? { promotion: move[4] } : {}),
        });
      }
    }
    expect(positions).toBeGreaterThan(300);
  });
});
