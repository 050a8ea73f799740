import { Chess } from "chess.js";
import { UserError } from "../../core/errors.ts";
import type { Observation } from "../../core/observation.ts";
import { createRandom } from "../../core/random.ts";
import type { StateRecord, StateViewer } from "../../core/state-view.ts";
import type { Task } from "../../core/task.ts";
import { stateFields } from "../state-fields.ts";
import { ChessConfigSchema } from "./config.ts";
import { type Episode, type EpisodeStatus, EpisodeStatusSchema, observeEpisode } from "./episode.ts";
import type { Puzzle } from "./puzzles.ts";
import { legalUciMoves } from "./rules.ts";
import { CHESS_FAMILY } from "./suite.ts";

const FILES = "abcdefgh";

const FIELDS = stateFields(
  {
    /** A FEN piece letter (`P`, `n`, ...) or `.` for an empty square. */
    "square.*": "string",
    turn: "string",
    castling: "string",
    enPassant: "string",
    halfmove: "number",
    fullmove: "number",
    check: "boolean",
    "legalMoves.count": "number",
    "moves.recent": "list",
    /** Whether `moves.recent` starts at the puzzle's setup move (the whole history is shown). */
    "moves.fromStart": "boolean",
    agentMoves: "number",
    status: "string",
    reason: "string",
  },
  {
    "puzzle.id": "string",
    "puzzle.rating": "number",
    agent: "string",
    /** The environment's listing limit, present when the observation shows a cut list. */
    "legalMoves.limit": "number",
    maxAgentMoves: "number",
  },
);

const HEADER = /^Chess puzzle (\S+) \(rating (-?\d+)\)\. You play (White|Black)\.$/m;
const FEN_LINE = /^FEN: (.+)$/m;
const LAST_MOVES = /^Last moves: (.*)$/m;
const YOUR_MOVES = /^Your moves: (\d+) of (\d+)$/m;
const OVER = /^Episode over \(([a-z]+)\): (.*)$/m;
const CUT = /^Legal moves \(\d+, first (\d+) shown\):/m;

function badObservation(what: string): UserError {
  return new UserError(
    "chess.bad_state_view",
    `Chess state view: the observation has no ${what} line. View only observations a chess environment produced.`,
  );
}

function required(text: string, pattern: RegExp, what: string): RegExpExecArray {
  const m = pattern.exec(text);
  if (!m) throw badObservation(what);
  return m;
}

/** The chess state an observation shows: FEN fields square by square, the puzzle, the move counts. */
function view(observation: Observation): StateRecord {
  const text = observation.text;
  const header = required(text, HEADER, "`Chess puzzle ...` header");
  const fen = required(text, FEN_LINE, "`FEN:`")[1] ?? "";
  const [placement = "", turn = "w", castling = "-", enPassant = "-", halfmove = "0", fullmove = "1"] =
    fen.split(" ");
  const record: StateRecord = {
    "puzzle.id": header[1] ?? "",
    "puzzle.rating": Number(header[2]),
    agent: header[3] === "White" ? "white" : "black",
  };
  placement.split("/").forEach((rank, i) => {
    let file = 0;
    for (const ch of rank) {
      if (/\d/.test(ch)) {
        for (let k = 0; k < Number(ch); k++) record[`square.${FILES[file++]}${8 - i}`] = ".";
      } else record[`square.${FILES[file++]}${8 - i}`] = ch;
    }
  });
  const chess = new Chess(fen);
  Object.assign(record, {
    turn,
    castling,
    enPassant,
    halfmove: Number(halfmove),
    fullmove: Number(fullmove),
    check: chess.inCheck(),
  });
  const over = OVER.exec(text);
  const status = over ? EpisodeStatusSchema.parse(over[1]) : "running";
  record["legalMoves.count"] = status === "running" ? legalUciMoves(chess).length : 0;
  const cut = CUT.exec(text);
  if (cut) record["legalMoves.limit"] = Number(cut[1]);
  const last = required(text, LAST_MOVES, "`Last moves:`")[1] ?? "";
  const recent = last === "(none)" ? [] : last.split(" ").filter((m) => m !== "(setup)");
  record["moves.recent"] = recent;
  record["moves.fromStart"] = last === "(none)" || last.includes(" (setup)");
  const moves = required(text, YOUR_MOVES, "`Your moves:`");
  record.agentMoves = Number(moves[1]);
  record.maxAgentMoves = Number(moves[2]);
  record.status = status;
  record.reason = over?.[2] ?? "";
  return record;
}

/** The FEN of a state's fields. */
export function fenOfState(state: StateRecord): string {
  const ranks: string[] = [];
  for (let rank = 8; rank >= 1; rank--) {
    let out = "";
    let empty = 0;
    for (const file of FILES) {
      const piece = String(state[`square.${file}${rank}`] ?? ".");
      if (piece === ".") empty++;
      else {
        if (empty > 0) out += String(empty);
        out += piece;
        empty = 0;
      }
    }
    ranks.push(empty > 0 ? out + String(empty) : out);
  }
  const rest = [state.turn ?? "w", state.castling ?? "-", state.enPassant ?? "-"];
  return [ranks.join("/"), ...rest, state.halfmove ?? 0, state.fullmove ?? 1].join(" ");
}

/**
 * The environment's observation of `state`: an episode is rebuilt from the fields (board from the FEN,
 * the recent moves, the counters) and observed with the environment's own `observeEpisode`.
 */
function render(state: StateRecord, previous: Observation, task?: Task): Observation {
  const fen = fenOfState(state);
  let chess: Chess;
  try {
    chess = new Chess(fen);
  } catch (cause) {
    throw new UserError(
      "chess.bad_state",
      `Chess state render: the state's board and fields make the FEN "${fen}", which is not a legal position. Give every square.* a piece letter or "." and valid turn/castling/en-passant fields.`,
      { cause },
    );
  }
  const recent = (Array.isArray(state["moves.recent"]) ? state["moves.recent"] : []).map(String);
  // A placeholder before the shown moves: the setup move is then not among them (offset > 0).
  const history = state["moves.fromStart"] === false ? ["", ...recent] : recent;
  const limit =
    state["legalMoves.limit"] ??
    Number(CUT.exec(previous.text)?.[1] ?? ChessConfigSchema.shape.legalActionLimit.parse(undefined));
  const instruction = task?.instruction ?? previous.instruction ?? "";
  const episode: Episode = {
    task: task ?? ({ instruction } as Task),
    puzzle: { id: String(state["puzzle.id"] ?? ""), rating: Number(state["puzzle.rating"] ?? 0) } as Puzzle,
    seed: 0,
    chess,
    history,
    agentMoves: Number(state.agentMoves ?? 0),
    maxAgentMoves: Number(state.maxAgentMoves ?? 0),
    status: EpisodeStatusSchema.parse(state.status ?? "running") as EpisodeStatus,
    reason: String(state.reason ?? ""),
    agent: state.agent === "black" ? "black" : "white",
    random: createRandom(CHESS_FAMILY, "state-view"),
    lastError: undefined,
  };
  const observation = observeEpisode(episode, { legalActionLimit: Number(limit), error: undefined });
  if (task === undefined && previous.instruction === undefined) delete observation.instruction;
  return observation;
}

/** Chess observations as states (see `StateViewer`). */
export const chessStateViewer: StateViewer = {
  family: CHESS_FAMILY,
  fields: FIELDS,
  view,
  render,
};
