import { readFileSync } from "node:fs";
import { Chess } from "chess.js";
import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { readCsv } from "./csv.ts";
import { applyUci } from "./rules.ts";

const UCI = /^[a-h][1-8][a-h][1-8][qrbn]?$/;
const IntText = z
  .string()
  .trim()
  .regex(/^-?\d+$/, "an integer")
  .transform(Number);

/**
 * One Lichess puzzle (https://database.lichess.org/#puzzles). `fen` is the position *before* the
 * opponent's setup move `moves[0]`; the solver plays `moves[1]`, `moves[3]`, ...; the list has an even
 * length so the solver plays the last move.
 */
export const PuzzleSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '_' and '-'"),
  fen: z.string().min(1),
  moves: z
    .array(z.string().regex(UCI, "UCI moves such as e2e4 or e7e8q"))
    .min(2, "at least the setup move and one solver move")
    .refine((m) => m.length % 2 === 0, "an even number of moves (the solver plays the last one)"),
  rating: z.number().int(),
  ratingDeviation: z.number().int().optional(),
  popularity: z.number().int().optional(),
  nbPlays: z.number().int().optional(),
  themes: z.array(z.string()).default([]),
  gameUrl: z.string().optional(),
});
export type Puzzle = z.infer<typeof PuzzleSchema>;

const REQUIRED_COLUMNS = ["PuzzleId", "FEN", "Moves", "Rating"] as const;

const RowSchema = z.object({
  PuzzleId: z.string().trim().min(1, "an id"),
  FEN: z.string().trim().min(1, "a FEN"),
  Moves: z.string().trim().min(1, "UCI moves"),
  Rating: IntText,
  RatingDeviation: IntText.optional(),
  Popularity: IntText.optional(),
  NbPlays: IntText.optional(),
  Themes: z.string().optional(),
  GameUrl: z.string().optional(),
});

export const PuzzleFilterSchema = z
  .object({
    /** Inclusive lower bound on Rating. */
    minRating: z.number().int().optional(),
    /** Exclusive upper bound on Rating (the SKL reference uses puzzles rated < 1000). */
    maxRating: z.number().int().optional(),
    /** Keep at most this many puzzles (in file order, after the rating filter). */
    limit: z.number().int().positive().optional(),
  })
  .strict();
export type PuzzleFilter = z.infer<typeof PuzzleFilterSchema>;

function malformed(source: string, line: number, message: string): UserError {
  return new UserError("chess.bad_puzzle_row", `${source} line ${line}: ${message}`, {
    details: { source, line },
  });
}

/** Checks that the moves replay legally from the FEN (chess.js); returns a message or undefined. */
function replayProblem(fen: string, moves: ReadonlyArray<string>): string | undefined {
  let chess: Chess;
  try {
    chess = new Chess(fen);
  } catch (error) {
    return `FEN "${fen}" is invalid: ${(error as Error).message}`;
  }
  for (const [index, move] of moves.entries()) {
    if (!applyUci(chess, move)) return `move ${index + 1} "${move}" is illegal in the position reached`;
  }
  return undefined;
}

/**
 * Parses Lichess-format puzzle CSV text (header with at least PuzzleId,FEN,Moves,Rating; extra columns
 * ignored). Every row is validated (zod, then a legal replay with chess.js); a malformed row throws a
 * UserError (`chess.bad_puzzle_row`) naming `source` and the line. Filters by rating afterwards.
 */
export function parsePuzzlesCsv(text: string, source = "puzzle CSV", filter: PuzzleFilter = {}): Puzzle[] {
  const { records, problems } = readCsv(text);
  const firstProblem = problems[0];
  const header = records[0];
  if (firstProblem && (!header || firstProblem.line < header.line)) {
    throw malformed(source, firstProblem.line, firstProblem.message);
  }
  if (!header)
    throw new UserError("chess.bad_puzzle_csv", `${source} is empty; expected a Lichess puzzle CSV.`);
  const columns = header.fields.map((f) => f.trim());
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length > 0) {
    throw malformed(
      source,
      header.line,
      `the header lacks ${missing.join(", ")}; expected PuzzleId,FEN,Moves,Rating,... (Lichess format).`,
    );
  }
  const problemAt = new Map(problems.map((p) => [p.line, p.message]));
  const all = [...records.slice(1).map((r) => r.line), ...problems.map((p) => p.line)].sort((a, b) => a - b);
  const byLine = new Map(records.map((r) => [r.line, r]));
  const puzzles: Puzzle[] = [];
  const seen = new Set<string>();
  for (const line of all) {
    const problem = problemAt.get(line);
    if (problem !== undefined) throw malformed(source, line, problem);
    const record = byLine.get(line);
    if (!record) continue;
    if (record.fields.length !== columns.length) {
      throw malformed(source, line, `${record.fields.length} fields, the header has ${columns.length}.`);
    }
    const row: Record<string, string> = {};
    for (const [i, name] of columns.entries())
      if (record.fields[i] !== "") row[name] = record.fields[i] as string;
    const parsedRow = RowSchema.safeParse(row);
    if (!parsedRow.success) {
      const issues = parsedRow.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`);
      throw malformed(source, line, `${issues.join("; ")}.`);
    }
    const r = parsedRow.data;
    const puzzle = PuzzleSchema.safeParse({
      id: r.PuzzleId,
      fen: r.FEN,
      moves: r.Moves.split(/\s+/),
      rating: r.Rating,
      ratingDeviation: r.RatingDeviation,
      popularity: r.Popularity,
      nbPlays: r.NbPlays,
      themes: r.Themes?.trim() ? r.Themes.trim().split(/\s+/) : [],
      gameUrl: r.GameUrl,
    });
    if (!puzzle.success) {
      const issues = puzzle.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`);
      throw malformed(source, line, `${issues.join("; ")}.`);
    }
    const illegal = replayProblem(puzzle.data.fen, puzzle.data.moves);
    if (illegal !== undefined) throw malformed(source, line, `${illegal}.`);
    if (seen.has(puzzle.data.id)) throw malformed(source, line, `duplicate PuzzleId "${puzzle.data.id}".`);
    seen.add(puzzle.data.id);
    puzzles.push(puzzle.data);
  }
  return filterPuzzles(puzzles, filter);
}

/** Keeps puzzles with minRating <= Rating < maxRating, then the first `limit`. */
export function filterPuzzles(puzzles: ReadonlyArray<Puzzle>, filter: PuzzleFilter = {}): Puzzle[] {
  const kept = puzzles.filter(
    (p) =>
      (filter.minRating === undefined || p.rating >= filter.minRating) &&
      (filter.maxRating === undefined || p.rating < filter.maxRating),
  );
  return filter.limit === undefined ? kept : kept.slice(0, filter.limit);
}

/** Reads a Lichess puzzle CSV file; throws a UserError when it cannot be read or a row is malformed. */
export function loadPuzzles(path: string, filter: PuzzleFilter = {}): Puzzle[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new UserError("chess.puzzle_file", `Cannot read the puzzle CSV "${path}"; check the path.`, {
      cause,
    });
  }
  return parsePuzzlesCsv(text, path, filter);
}
