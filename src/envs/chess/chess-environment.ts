import { Chess } from "chess.js";
import { type Action, UciMoveActionSchema } from "../../core/action.ts";
import type { Capabilities, EnvironmentSnapshot, ResetOptions, StepResult } from "../../core/environment.ts";
import { UserError } from "../../core/errors.ts";
import type { Observation } from "../../core/observation.ts";
import { createRandom } from "../../core/random.ts";
import type { TaskSuite } from "../../core/task.ts";
import type { VerifierResult } from "../../core/verifier.ts";
import {
  EpisodeSlot,
  endedStep,
  episodeEndedError,
  RecordedEpisodes,
  resumeEpisode,
  type SnapshotEnvironment,
} from "../episode-kit.ts";
import { type ChessConfig, type ChessConfigInput, parseChessConfig } from "./config.ts";
import { type Episode, EpisodeStateSchema, observeEpisode, onSolutionLine, saveEpisode } from "./episode.ts";
import { opponentMove } from "./opponent.ts";
import { applyUci, gameEnd, legalUciMoves, replayBoard, sideToMove } from "./rules.ts";
import { StockfishPool } from "./stockfish-pool.ts";
import { CHESS_FAMILY, createChessSuite, puzzleOfTask } from "./suite.ts";
import { verdict } from "./verdict.ts";

export interface ChessEnvironment extends SnapshotEnvironment {
  readonly config: ChessConfig;
}

export interface ChessEnvironmentOptions {
  /** Play this suite's tasks (each carries its puzzle in `params.puzzle`) instead of `config.suite`'s. */
  suite?: TaskSuite;
  /** A shared engine pool; the environment does not close it. Default: its own, started when needed. */
  pool?: StockfishPool;
}

class ChessPuzzles extends RecordedEpisodes<Episode> implements ChessEnvironment {
  readonly family = CHESS_FAMILY;
  readonly capabilities: Capabilities;
  protected readonly slot = new EpisodeSlot<Episode>(CHESS_FAMILY, "Chess", (ep) => ({
    taskId: ep.task.id,
    seed: ep.seed,
    state: saveEpisode(ep),
  }));
  private ownPool: StockfishPool | undefined;

  constructor(
    readonly config: ChessConfig,
    readonly suite: TaskSuite,
    private readonly sharedPool: StockfishPool | undefined,
  ) {
    super();
    const usesEngine =
      config.opponent === "stockfish" ||
      (config.opponent === "solution" && config.offLineOpponent === "stockfish");
    // One thread, fixed depth and a cleared hash per search make Stockfish deterministic; movetime does not.
    const deterministic = !(usesEngine && config.engine.movetimeMs !== undefined);
    this.capabilities = { snapshot: true, replay: deterministic, deterministic };
  }

  async reset(options: ResetOptions): Promise<Observation> {
    const { taskId, seed } = this.slot.parseReset(options, "{taskId: string, seed: non-negative integer}");
    return this.observe(this.slot.set(this.freshEpisode(taskId, seed)));
  }

  async step(action: Action): Promise<StepResult> {
    const ep = this.slot.require("step");
    if (ep.status !== "running")
      return endedStep(this.observe(ep, episodeEndedError("chess")), this.ends(ep), { status: ep.status });
    ep.agentMoves++;
    ep.lastError = undefined;
    const parsed = UciMoveActionSchema.safeParse(action);
    const info: Record<string, unknown> = { agentMove: null, opponentMove: null };
    if (!parsed.success) {
      const given = action as { type?: unknown; move?: unknown } | null;
      ep.lastError = {
        code: "invalid_action",
        message:
          `Chess accepts only {"type":"uci","move":"e2e4"} (from, to, optional promotion q/r/b/n); got ` +
          `${given?.type === "uci" ? `move ${JSON.stringify(given.move)}` : `type ${JSON.stringify(given?.type ?? null)}`}.`,
      };
    } else if (!applyUci(ep.chess, parsed.data.move)) {
      const legal = legalUciMoves(ep.chess);
      ep.lastError = {
        code: "illegal_move",
        message: `${parsed.data.move} is not a legal move here. Legal moves: ${legal.slice(0, 30).join(" ")}${legal.length > 30 ? " ..." : ""}.`,
      };
    } else {
      const move = parsed.data.move;
      ep.history.push(move);
      info.agentMove = move;
      await this.afterAgentMove(ep, info);
    }
    if (ep.status === "running" && ep.agentMoves >= ep.maxAgentMoves) {
      ep.status = "truncated";
      ep.reason = `no win within ${ep.maxAgentMoves} agent moves`;
    }
    info.status = ep.status;
    info.onLine = onSolutionLine(ep);
    const reward = rewardOf(ep.status as Episode["status"]);
    return { observation: this.observe(ep), reward, ...this.ends(ep), info };
  }

  async evaluate(): Promise<VerifierResult> {
    return verdict(this.slot.require("evaluate"));
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = this.slot.readSnapshot(snapshot, EpisodeStateSchema);
    const ep = this.freshEpisode(snap.taskId, snap.seed);
    const s = snap.state;
    const board = replayBoard(ep.puzzle.fen, s.history);
    if (!board || board.fen() !== s.fen) {
      throw this.slot.badSnapshot(
        `Chess snapshot of puzzle "${ep.task.id}" does not replay to its FEN; restore it where it was made.`,
      );
    }
    ep.chess = board;
    ep.history = [...s.history];
    ep.agentMoves = s.agentMoves;
    ep.status = s.status;
    ep.reason = s.reason;
    return this.observe(this.slot.set(resumeEpisode(ep, s)));
  }

  /** The next listed solution move while on the line, else Stockfish's best move; null once ended. */
  async oracleAction(): Promise<Action | null> {
    const ep = this.slot.require("oracleAction");
    if (ep.status !== "running" || sideToMove(ep.chess) !== ep.agent) return null;
    const listed = ep.puzzle.moves[ep.history.length];
    if (onSolutionLine(ep) && listed !== undefined) return { type: "uci", move: listed };
    if (legalUciMoves(ep.chess).length === 0) return null;
    const move = await this.pool().bestMove(ep.puzzle.fen, ep.history);
    return move === null ? null : { type: "uci", move };
  }

  async close(): Promise<void> {
    this.slot.close();
    const own = this.ownPool;
    this.ownPool = undefined;
    if (own) await own.close();
  }

  private async afterAgentMove(ep: Episode, info: Record<string, unknown>): Promise<void> {
    const afterAgent = gameEnd(ep.chess);
    if (afterAgent === "checkmate") return this.finish(ep, "won", "the agent delivered checkmate");
    if (onSolutionLine(ep) && ep.history.length === ep.puzzle.moves.length) {
      return this.finish(ep, "won", "the agent completed the puzzle's solution line");
    }
    if (afterAgent !== null) return this.finish(ep, "draw", `draw after the agent's move (${afterAgent})`);
    const reply = await opponentMove(ep, this.config.opponent, this.config.offLineOpponent, () =>
      this.pool(),
    );
    applyUci(ep.chess, reply);
    ep.history.push(reply);
    info.opponentMove = reply;
    const afterReply = gameEnd(ep.chess);
    if (afterReply === "checkmate") return this.finish(ep, "lost", "the opponent checkmated the agent");
    if (afterReply !== null) return this.finish(ep, "draw", `draw after the opponent's move (${afterReply})`);
  }

  private finish(ep: Episode, status: Episode["status"], reason: string): void {
    ep.status = status;
    ep.reason = reason;
  }

  private ends(ep: Episode): { terminated: boolean; truncated: boolean } {
    return {
      terminated: ep.status !== "running" && ep.status !== "truncated",
      truncated: ep.status === "truncated",
    };
  }

  private pool(): StockfishPool {
    if (this.sharedPool) return this.sharedPool;
    this.ownPool ??= new StockfishPool(this.config.engine);
    return this.ownPool;
  }

  private freshEpisode(taskId: string, seed: number): Episode {
    const task = this.suite.get(taskId);
    const puzzle = puzzleOfTask(task);
    const chess = new Chess(puzzle.fen);
    const setup = puzzle.moves[0] as string;
    if (!applyUci(chess, setup)) {
      throw new UserError("chess.bad_task", `Puzzle "${puzzle.id}": the setup move ${setup} is illegal.`);
    }
    return {
      task,
      puzzle,
      seed,
      chess,
      history: [setup],
      agentMoves: 0,
      maxAgentMoves: this.config.maxAgentMoves,
      status: "running",
      reason: "",
      agent: sideToMove(chess),
      random: createRandom(CHESS_FAMILY, taskId, seed),
      lastError: undefined,
    };
  }

  private observe(ep: Episode, error?: Observation["error"]): Observation {
    const legalActionLimit = this.config.legalActionLimit;
    return observeEpisode(ep, error === undefined ? { legalActionLimit } : { legalActionLimit, error });
  }
}

function rewardOf(status: Episode["status"]): number {
  return status === "won" ? 1 : status === "lost" ? -1 : 0;
}

/**
 * A chess-puzzle environment (family "chess"). The reward rules are documented on `verdict()` in `verdict.ts`.
 * Throws a UserError on a bad config. Stockfish child processes start only when an opponent or the
 * oracle needs one; `close()` stops them.
 */
export function createChessEnvironment(
  config: ChessConfigInput = {},
  options: ChessEnvironmentOptions = {},
): ChessEnvironment {
  const resolved = parseChessConfig(config);
  const suite = options.suite ?? createChessSuite(resolved.suite);
  return new ChessPuzzles(resolved, suite, options.pool);
}
