import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { stableSeed } from "../../core/hash.ts";
import { type Split, type Task, TaskSchema, type TaskSuite } from "../../core/task.ts";
import { BUILTIN_PUZZLES_CSV } from "./builtin-puzzles.ts";
import { filterPuzzles, loadPuzzles, type Puzzle, PuzzleSchema, parsePuzzlesCsv } from "./puzzles.ts";

export const CHESS_FAMILY = "chess";
export const CHESS_VERIFIER_KIND = "chess-puzzle";
export const CHESS_ORACLE_KIND = "puzzle-solution";
/** At most this many agent moves per episode (the SKL reference). */
export const DEFAULT_MAX_AGENT_MOVES = 10;

export const ChessSuiteOptionsSchema = z
  .object({
    name: z.string().min(1).default("chess-puzzles"),
    /** A Lichess-format puzzle CSV; default: the 30 built-in puzzles. */
    csvPath: z.string().min(1).optional(),
    /** Inclusive lower bound on the puzzle rating. */
    minRating: z.number().int().optional(),
    /** Exclusive upper bound on the puzzle rating (the SKL reference: 1000). */
    maxRating: z.number().int().optional(),
    limit: z.number().int().positive().optional(),
    /** Share of puzzles held out, chosen by the stable hash `chess|split|<PuzzleId>`. */
    heldoutFraction: z.number().min(0).max(1).default(0.5),
  })
  .strict();
export type ChessSuiteOptionsInput = z.input<typeof ChessSuiteOptionsSchema>;
export type ChessSuiteOptions = z.output<typeof ChessSuiteOptionsSchema>;

export interface ChessSuite extends TaskSuite {
  /** The puzzle of a task (throws a UserError for unknown ids). */
  puzzle(taskId: string): Puzzle;
}

/** Train or held out, from a stable hash of the puzzle id (the same everywhere, independent of order). */
export function splitOfPuzzle(id: string, heldoutFraction: number): Split {
  return stableSeed(CHESS_FAMILY, "split", id) / 2 ** 32 < heldoutFraction ? "heldout" : "train";
}

function instructionOf(puzzle: Puzzle): string {
  const solverWhite = puzzle.fen.split(" ")[1] === "b";
  return (
    `Solve the chess puzzle: you play ${solverWhite ? "White" : "Black"}. ` +
    'Each step is one move in UCI notation: {"type":"uci","move":"e2e4"} (promotions like e7e8q). ' +
    `Find the winning line (checkmate or the puzzle's solution) within ${DEFAULT_MAX_AGENT_MOVES} moves.`
  );
}

/** The task of a puzzle: id = PuzzleId, the puzzle itself in `params.puzzle`. */
export function puzzleTask(puzzle: Puzzle, split: Split): Task {
  return TaskSchema.parse({
    id: puzzle.id,
    instruction: instructionOf(puzzle),
    family: CHESS_FAMILY,
    seed: 0,
    split,
    verifier: { kind: CHESS_VERIFIER_KIND, successThreshold: 1 },
    oracle: { kind: CHESS_ORACLE_KIND },
    tier: puzzle.moves.length <= 2 ? "short" : "long",
    maxSteps: DEFAULT_MAX_AGENT_MOVES,
    tags: [CHESS_FAMILY, `rating-${Math.floor(puzzle.rating / 100) * 100}`, ...puzzle.themes],
    params: { puzzle },
  });
}

/** The puzzle a chess task carries; throws a UserError when it has none. */
export function puzzleOfTask(task: Task): Puzzle {
  const parsed = PuzzleSchema.safeParse(task.params?.puzzle);
  if (!parsed.success) {
    throw new UserError("chess.bad_task", `Task "${task.id}" carries no chess puzzle in params.puzzle.`);
  }
  return parsed.data;
}

/**
 * A chess puzzle suite: one task per puzzle (task id = PuzzleId), split train/held-out by a stable hash.
 * Puzzles come from `puzzles`, else `options.csvPath`, else the built-in 30.
 */
export function createChessSuite(
  input: ChessSuiteOptionsInput = {},
  puzzles?: ReadonlyArray<Puzzle>,
): ChessSuite {
  const parsed = ChessSuiteOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new UserError("chess.bad_suite", `Chess suite options are invalid: ${issues.join("; ")}.`);
  }
  const o = parsed.data;
  const filter = {
    ...(o.minRating !== undefined ? { minRating: o.minRating } : {}),
    ...(o.maxRating !== undefined ? { maxRating: o.maxRating } : {}),
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
  };
  const chosen = puzzles
    ? filterPuzzles(puzzles, filter)
    : o.csvPath
      ? loadPuzzles(o.csvPath, filter)
      : parsePuzzlesCsv(BUILTIN_PUZZLES_CSV, "built-in chess puzzles", filter);
  const tasks: Task[] = [];
  const byId = new Map<string, { task: Task; puzzle: Puzzle }>();
  for (const puzzle of chosen) {
    if (byId.has(puzzle.id)) {
      throw new UserError("chess.duplicate_task", `Chess suite has two puzzles with id "${puzzle.id}".`);
    }
    const task = puzzleTask(puzzle, splitOfPuzzle(puzzle.id, o.heldoutFraction));
    tasks.push(task);
    byId.set(puzzle.id, { task, puzzle });
  }
  const entry = (id: string) => {
    const found = byId.get(id);
    if (found) return found;
    const known = tasks.map((t) => t.id);
    const shown =
      known.length > 12 ? `${known.slice(0, 12).join(", ")}, ... (${known.length} in all)` : known.join(", ");
    throw new UserError("task.unknown", `Unknown chess puzzle "${id}". Known tasks: ${shown || "(none)"}.`);
  };
  return {
    name: o.name,
    family: CHESS_FAMILY,
    list: () => tasks,
    get: (id) => entry(id).task,
    puzzle: (id) => entry(id).puzzle,
  };
}
