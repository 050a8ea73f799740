import { Chess } from "chess.js";

const UCI_MOVE = /^[a-h][1-8][a-h][1-8][qrbn]?$/;

/**
 * chess.js's internals the fast paths read: its legal-move generator (0x88 squares), the move maker
 * and position counter its public `move()` runs after building a verbose `Move`, and its Zobrist hash
 * of the position (pieces, side to move, castling rights, en-passant file: all that decides the legal
 * moves). chess.js is pinned; without them every function here takes the public API.
 */
interface InternalMove {
  from: number;
  to: number;
  promotion?: string;
  flags: number;
}
interface InternalBoard {
  _moves(options: { legal: boolean }): InternalMove[];
  _makeMove(move: InternalMove): void;
  _incPositionCount(): void;
  _hash: bigint;
}

function internalsOf(chess: Chess): InternalBoard | undefined {
  const b = chess as unknown as Partial<InternalBoard>;
  return typeof b._moves === "function" &&
    typeof b._makeMove === "function" &&
    typeof b._incPositionCount === "function" &&
    typeof b._hash === "bigint"
    ? (b as InternalBoard)
    : undefined;
}

/** An 0x88 square (chess.js's numbering: a8 is 0, h1 is 119) in algebraic notation. */
function square0x88(square: number): string {
  return `${"abcdefgh"[square & 0xf]}${"87654321"[square >> 4]}`;
}

/** An algebraic square (`e4`) as chess.js's 0x88 number (the inverse of `square0x88`). */
function squareNumber(square: string): number {
  return (56 - square.charCodeAt(1)) * 16 + (square.charCodeAt(0) - 97);
}

/** A position's legal moves, generated once: chess.js's own and in UCI (sorted). */
interface LegalMoves {
  hash: bigint;
  moves: ReadonlyArray<InternalMove>;
  uci: ReadonlyArray<string>;
}

/**
 * The legal moves of each board's current position, kept until the board's hash changes: a step
 * reads them for the move, the end checks, the opponent and the observation, which used to generate
 * them about thirteen times between them.
 */
const legalByBoard = new WeakMap<Chess, LegalMoves>();

function legalMovesOf(chess: Chess, board: InternalBoard): LegalMoves {
  const known = legalByBoard.get(chess);
  if (known !== undefined && known.hash === board._hash) return known;
  const moves = board._moves({ legal: true });
  const uci = moves.map((m) => `${square0x88(m.from)}${square0x88(m.to)}${m.promotion ?? ""}`).sort();
  const legal = { hash: board._hash, moves, uci };
  legalByBoard.set(chess, legal);
  return legal;
}

/**
 * Plays a UCI move on `chess`; returns false (board unchanged) when it is not legal. What chess.js's
 * `move({from, to, promotion})` does (the first legal move from-to whose promotion, if it has one, is
 * the one given; then the move made and the position counted), without the verbose `Move` it builds
 * and returns (SAN by a second move generation, two FENs, a make and undo: most of a chess step).
 */
export function applyUci(chess: Chess, uci: string): boolean {
  if (!UCI_MOVE.test(uci)) return false;
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const promotion = uci[4];
  const board = internalsOf(chess);
  if (board === undefined) {
    try {
      chess.move({ from, to, ...(promotion ? { promotion } : {}) });
      return true;
    } catch {
      return false;
    }
  }
  const from0x88 = squareNumber(from);
  const to0x88 = squareNumber(to);
  for (const m of legalMovesOf(chess, board).moves) {
    if (m.from === from0x88 && m.to === to0x88 && (m.promotion === undefined || m.promotion === promotion)) {
      board._makeMove(m);
      board._incPositionCount();
      return true;
    }
  }
  return false;
}

/**
 * The legal moves of the side to move in UCI, sorted (a stable order independent of chess.js). Read
 * from chess.js's internal move list when it has one: `moves({ verbose: true })` builds a full `Move`
 * per move; the UCI strings are the same (`legalUciMovesVerbose`, checked by the tests).
 */
export function legalUciMoves(chess: Chess): string[] {
  const board = internalsOf(chess);
  return board === undefined ? legalUciMovesVerbose(chess) : [...legalMovesOf(chess, board).uci];
}

/** How a game has ended in the position on `chess`, or null while it goes on. */
export type GameEnd =
  | "checkmate"
  | "stalemate"
  | "insufficient material"
  | "threefold repetition"
  | "fifty-move rule";

/**
 * What chess.js's `isCheckmate()` / `isGameOver()` and its draw checks say of the position, from one
 * legal-move list: checkmate or stalemate when the side to move has no legal move (in check or not),
 * then insufficient material, threefold repetition, the fifty-move rule, in that order.
 */
export function gameEnd(chess: Chess): GameEnd | null {
  const board = internalsOf(chess);
  const noMove =
    board === undefined ? chess.moves().length === 0 : legalMovesOf(chess, board).moves.length === 0;
  if (noMove) return chess.isCheck() ? "checkmate" : "stalemate";
  if (chess.isInsufficientMaterial()) return "insufficient material";
  if (chess.isThreefoldRepetition()) return "threefold repetition";
  if (chess.isDrawByFiftyMoves()) return "fifty-move rule";
  return null;
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
