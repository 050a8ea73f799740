import type { Chess } from "chess.js";
import { z } from "zod";
import type { Action } from "../../core/action.ts";
import { type ActionError, ActionErrorSchema, type Observation } from "../../core/observation.ts";
import { type Random, RandomStateSchema } from "../../core/random.ts";
import type { Task } from "../../core/task.ts";
import type { Puzzle } from "./puzzles.ts";
import { type Colour, legalUciMoves, sideToMove } from "./rules.ts";

export const EpisodeStatusSchema = z.enum(["running", "won", "lost", "draw", "truncated"]);
export type EpisodeStatus = z.infer<typeof EpisodeStatusSchema>;

/** The live state of one chess episode. */
export interface Episode {
  task: Task;
  puzzle: Puzzle;
  seed: number;
  /** The board after `history` was played from `puzzle.fen`. */
  chess: Chess;
  /** Every UCI move played from the puzzle FEN: the setup move first, then agent and opponent moves. */
  history: string[];
  /** Agent move attempts so far (illegal and invalid ones included). */
  agentMoves: number;
  maxAgentMoves: number;
  status: EpisodeStatus;
  reason: string;
  /** The solver's colour (the side to move after the setup move). */
  agent: Colour;
  /** The random opponent's stream, seeded from `chess|<taskId>|<seed>`. */
  random: Random;
  lastError: ActionError | undefined;
}

/** The saved part of an episode (snapshot `state`). */
export const EpisodeStateSchema = z.object({
  fen: z.string(),
  history: z.array(z.string()),
  agentMoves: z.number().int().nonnegative(),
  status: EpisodeStatusSchema,
  reason: z.string(),
  random: RandomStateSchema,
  lastError: ActionErrorSchema.optional(),
});
export type EpisodeState = z.infer<typeof EpisodeStateSchema>;

export function saveEpisode(ep: Episode): EpisodeState {
  return {
    fen: ep.chess.fen(),
    history: [...ep.history],
    agentMoves: ep.agentMoves,
    status: ep.status,
    reason: ep.reason,
    random: ep.random.getState(),
    ...(ep.lastError ? { lastError: { ...ep.lastError } } : {}),
  };
}

/** True while every move played so far is the puzzle's listed move. */
export function onSolutionLine(ep: Episode): boolean {
  if (ep.history.length > ep.puzzle.moves.length) return false;
  return ep.history.every((m, i) => ep.puzzle.moves[i] === m);
}

export function isEnded(ep: Episode): boolean {
  return ep.status !== "running";
}

const RECENT_MOVES = 6;

function renderText(ep: Episode, legal: string[], shown: string[]): string {
  const you = ep.agent === "white" ? "White" : "Black";
  const toMove = sideToMove(ep.chess);
  const recent = ep.history.slice(-RECENT_MOVES);
  const offset = ep.history.length - recent.length;
  const last = recent.map((m, i) => (offset + i === 0 ? `${m} (setup)` : m)).join(" ");
  const lines = [
    `Chess puzzle ${ep.puzzle.id} (rating ${ep.puzzle.rating}). You play ${you}.`,
    ep.chess.ascii().trimEnd(),
    `FEN: ${ep.chess.fen()}`,
    `Side to move: ${toMove === "white" ? "White" : "Black"}${toMove === ep.agent ? " (you)" : ""}`,
    `Last moves: ${last || "(none)"}`,
    `Your moves: ${ep.agentMoves} of ${ep.maxAgentMoves}`,
  ];
  if (ep.status !== "running") {
    lines.push(`Episode over (${ep.status}): ${ep.reason}`);
  } else if (legal.length > shown.length) {
    lines.push(`Legal moves (${legal.length}, first ${shown.length} shown): ${shown.join(" ")}`);
  } else {
    lines.push(`Legal moves (${legal.length}): ${shown.join(" ")}`);
  }
  return lines.join("\n");
}

/** The observation of an episode state; `error` defaults to the last step's error. */
export function observeEpisode(
  ep: Episode,
  options: { legalActionLimit: number; error?: ActionError | undefined },
): Observation {
  const error = "error" in options ? options.error : ep.lastError;
  const legal = ep.status === "running" ? legalUciMoves(ep.chess) : [];
  const shown = legal.slice(0, options.legalActionLimit);
  const fen = ep.chess.fen();
  const legalActions: Action[] = shown.map((move) => ({ type: "uci", move }));
  return {
    text: renderText(ep, legal, shown),
    instruction: ep.task.instruction,
    stateKey: fen,
    legalActions,
    data: {
      fen,
      moveNumber: ep.chess.moveNumber(),
      agentMoves: ep.agentMoves,
      legalMoveCount: legal.length,
      status: ep.status,
    },
    ...(error ? { error: { ...error } } : {}),
  };
}
