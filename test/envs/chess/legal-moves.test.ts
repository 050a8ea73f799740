// The step's legal-move list is read from chess.js's internal move generator (the verbose API costs
// most of a step); it must equal the public verbose API's list in every position, promotions,
// castling, en passant and checks included.
import { Chess } from "chess.js";
import { describe, expect, it } from "vitest";
import { createRandom } from "../../../src/core/index.ts";
import { BUILTIN_PUZZLES_CSV } from "../../../src/envs/chess/builtin-puzzles.ts";
import {
  applyUci,
  type GameEnd,
  gameEnd,
  legalUciMoves,
  legalUciMovesVerbose,
  parsePuzzlesCsv,
} from "../../../src/envs/chess/index.ts";

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

/** The public API's verdicts on a position, in `gameEnd`'s order. */
function publicEnd(chess: Chess): GameEnd | null {
  if (chess.isCheckmate()) return "checkmate";
  if (chess.isStalemate()) return "stalemate";
  if (chess.isInsufficientMaterial()) return "insufficient material";
  if (chess.isThreefoldRepetition()) return "threefold repetition";
  if (chess.isDrawByFiftyMoves()) return "fifty-move rule";
  return null;
}

describe("chess moves and game ends without the verbose API", () => {
  it("applyUci plays exactly what chess.js's move() plays, along random games from every built-in puzzle", () => {
    const random = createRandom("test", "chess-apply-uci");
    let moves = 0;
    for (const puzzle of parsePuzzlesCsv(BUILTIN_PUZZLES_CSV)) {
      const fast = new Chess(puzzle.fen);
      const reference = new Chess(puzzle.fen);
      for (let ply = 0; ply < 60; ply++) {
        expect(gameEnd(fast), fast.fen()).toBe(publicEnd(reference));
        const legal = legalUciMoves(fast);
        if (legal.length === 0) break;
        // Now and then an illegal move first: refused, the board unchanged.
        if (ply % 7 === 3) {
          expect(applyUci(fast, "a1a1")).toBe(false);
          expect(applyUci(fast, "h8h1q")).toBe(legal.includes("h8h1q"));
          if (legal.includes("h8h1q")) break;
        }
        const move = random.pick(legal);
        expect(applyUci(fast, move), move).toBe(true);
        reference.move({
          from: move.slice(0, 2),
          to: move.slice(2, 4),
          ...(move[4] ? { promotion: move[4] } : {}),
        });
        moves++;
        expect(fast.fen()).toBe(reference.fen());
        expect(fast.hash()).toBe(reference.hash());
        expect(fast.isThreefoldRepetition()).toBe(reference.isThreefoldRepetition());
      }
      expect(fast.history()).toEqual(reference.history());
    }
    expect(moves).toBeGreaterThan(500);
  });

  it("takes a promotion letter on a move that is no promotion, as move() does, and needs it on one that is", () => {
    const chess = new Chess("8/P6k/8/8/8/8/6K1/8 w - - 0 1");
    expect(applyUci(chess, "a7a8")).toBe(false);
    expect(applyUci(chess, "g2g3q")).toBe(true);
    expect(chess.fen()).toBe("8/P6k/8/8/8/6K1/8/8 b - - 1 1");
    expect(applyUci(chess, "h7h6")).toBe(true);
    expect(applyUci(chess, "a7a8n")).toBe(true);
    expect(chess.fen()).toBe("N7/8/7k/8/8/6K1/8/8 b - - 0 2");
  });

  it("names every game end as the public checks do, in their order", () => {
    const cases: Array<[string, GameEnd | null]> = [
      ["rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "checkmate"],
      ["7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "stalemate"],
      ["8/8/4k3/8/8/4K3/8/8 w - - 0 1", "insufficient material"],
      ["4k3/8/8/8/8/8/4P3/4K3 w - - 100 80", "fifty-move rule"],
      [SPECIAL_FENS[0] as string, null],
    ];
    for (const [fen, end] of cases) {
      expect(gameEnd(new Chess(fen)), fen).toBe(end);
      expect(publicEnd(new Chess(fen)), fen).toBe(end);
    }
    // Threefold repetition: knights out and back twice.
    const chess = new Chess();
    for (const m of ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]) {
      expect(gameEnd(chess), m).toBeNull();
      expect(applyUci(chess, m), m).toBe(true);
    }
    expect(gameEnd(chess)).toBe("threefold repetition");
  });

  it("follows a board changed outside applyUci (its legal moves are read again)", () => {
    const chess = new Chess();
    const before = legalUciMoves(chess);
    chess.move("e4");
    expect(legalUciMoves(chess)).toEqual(legalUciMovesVerbose(chess));
    chess.undo();
    expect(legalUciMoves(chess)).toEqual(before);
    chess.load(SPECIAL_FENS[1] as string);
    expect(legalUciMoves(chess)).toEqual(legalUciMovesVerbose(chess));
    expect(applyUci(chess, "e5f6")).toBe(true);
    expect(chess.fen()).toBe("rnbqkbnr/ppp1p1pp/5P2/3p4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
  });
});
