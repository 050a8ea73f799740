import { Chess } from "chess.js";

/** Plays a UCI move on `chess`; returns false (board unchanged) when it is not legal. */
export function applyUci(chess: Chess, uci: string): boolean {
  if (!/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(uci)) return false;
  const promotion = uci[4];
  try {
    chess.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), ...(promotion ? { promotion } : {}) });
    return true;
  } catch {
    return false;
  }
}

/** chess.js's internal legal-move list: squares in 0x88 numbering (what its verbose `Move` is built from). */
interface InternalMoves {
  _moves(options: { legal: boolean }): ReadonlyArray<{ from: number; to: number; promotion?: string }>;
}

/** An 0x88 square (chess.js's numbering: a8 is 0, h1 is 119) in algebraic notation. */
function square0x88(square: number): string {
  return `${"abcdefgh"[square & 0xf]}${"87654321"[square >> 4]}`;
}

/**
 * The legal moves of the side to move in UCI, sorted (a stable order independent of chess.js). Read
 * from chess.js's internal move list when it has one: `moves({ verbose: true })` builds a full `Move`
 * per move (SAN by a second move generation, two FENs, a make and undo), which costs the step most of
 * its time; the UCI strings are the same (`legalUciMovesVerbose`, checked by the tests).
 */
export function legalUciMoves(chess: Chess): string[] {
  const internal = chess as unknown as Partial<InternalMoves>;
  if (typeof internal._moves !== "function") return legalUciMovesVerbose(chess);
  return internal
    ._moves({ legal: true })
    .map((m) => `${square0x88(m.from)}${square0x88(m.to)}${m.promotion ?? ""}`)
    .sort();
}

/** `legalUciMoves` through chess.js's public verbose API (the reference the fast path must equal). */
export function legalUciMovesVerbose(chess: Chess): string[] {
  return chess
    .moves({ verbose: true })
    .map((m) => m.lan)
    .sort();
}

/** The legal moves of the side to move in the position `fen`, in UCI, sorted; undefined when `fen` is not a FEN. */
export function legalUciMovesFromFen(fen: string): string[] | undefined {
  try {
    return legalUciMoves(new Chess(fen));
  } catch {
    return undefined;
  }
}

/** A board from a FEN and the UCI moves played from it. */
export function replayBoard(fen: string, moves: ReadonlyArray<string>): Chess | undefined {
  const chess = new Chess(fen);
  for (const m of moves) if (!applyUci(chess, m)) return undefined;
  return chess;
}

export type Colour = "white" | "black";

export function sideToMove(chess: Chess): Colour {
  return chess.turn() === "w" ? "white" : "black";
}
