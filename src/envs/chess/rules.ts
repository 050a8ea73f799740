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

/** The legal moves of the side to move in UCI, sorted (a stable order independent of chess.js). */
export function legalUciMoves(chess: Chess): string[] {
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
