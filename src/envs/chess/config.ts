import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { StockfishPoolOptionsSchema } from "./stockfish-pool.ts";
import { ChessSuiteOptionsSchema, DEFAULT_MAX_AGENT_MOVES } from "./suite.ts";

/**
 * How the opponent answers an agent move:
 * - `solution`: the puzzle's listed reply while the agent follows the line; off the line, `offLineOpponent`;
 * - `stockfish`: the engine's best move (fixed depth, one thread: deterministic);
 * - `random`: a uniformly random legal move from the episode's seeded stream (`chess|<taskId>|<seed>`);
 * - `first-legal`: the first legal move in sorted UCI order.
 */
export const OpponentPolicySchema = z.enum(["solution", "stockfish", "random", "first-legal"]);
export type OpponentPolicy = z.infer<typeof OpponentPolicySchema>;

export const ChessConfigSchema = z
  .object({
    opponent: OpponentPolicySchema.default("solution"),
    /** The opponent once the agent has left the puzzle's line (only used by `solution`). */
    offLineOpponent: z.enum(["stockfish", "random", "first-legal"]).default("stockfish"),
    /** Agent move attempts per episode (illegal and invalid ones count); then the episode is truncated. */
    maxAgentMoves: z.number().int().positive().max(1000).default(DEFAULT_MAX_AGENT_MOVES),
    /** At most this many legal moves are listed in `legalActions` and the text. */
    legalActionLimit: z.number().int().positive().max(500).default(30),
    /** Stockfish pool (opponent, oracle off the line); started only when first needed. */
    engine: StockfishPoolOptionsSchema.prefault({}),
    /** Which puzzles the built-in suite holds (ignored when a suite is passed to the factory). */
    suite: ChessSuiteOptionsSchema.prefault({}),
  })
  .strict();
export type ChessConfigInput = z.input<typeof ChessConfigSchema>;
export type ChessConfig = z.output<typeof ChessConfigSchema>;

/** Validates a chess config (strict); throws a UserError naming each problem. */
export function parseChessConfig(input: unknown = {}): ChessConfig {
  const parsed = ChessConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new UserError("chess.bad_config", `Chess config is invalid: ${issues.join("; ")}.`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
