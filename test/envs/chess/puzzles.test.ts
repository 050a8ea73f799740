import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isRehearsalError, UserError } from "../../../src/core/index.ts";
import { BUILTIN_PUZZLES_CSV } from "../../../src/envs/chess/builtin-puzzles.ts";
import {
  createChessSuite,
  loadPuzzles,
  parsePuzzlesCsv,
  readCsv,
  splitOfPuzzle,
} from "../../../src/envs/chess/index.ts";

const FIXTURE = fileURLToPath(new URL("../../fixtures/chess/puzzles.csv", import.meta.url));
const HEADER = "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl";
const GOOD =
  "2KFep,5r1k/p5pp/2p5/2b5/4p1Q1/2P5/PP4PP/2R2q1K w - - 9 31,c1f1 f8f1,399,109,93,175,backRankMate mate mateIn1,https://lichess.org/jzbcFOuB#61";

function errorOf(fn: () => unknown): UserError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error("expected a UserError");
}

describe("Lichess puzzle CSV", () => {
  it("loads the fixture: 30 puzzles, mixed ratings, even move lists", () => {
    const puzzles = loadPuzzles(FIXTURE);
    expect(puzzles).toHaveLength(30);
    expect(puzzles.filter((p) => p.rating < 1000).length).toBeGreaterThanOrEqual(20);
    expect(puzzles.some((p) => p.rating >= 1500)).toBe(true);
    for (const p of puzzles) expect(p.moves.length % 2).toBe(0);
    expect(puzzles[0]?.themes.length).toBeGreaterThan(0);
  });

  it("filters by rating (reference: < 1000) and limit", () => {
    const easy = loadPuzzles(FIXTURE, { maxRating: 1000 });
    expect(easy.length).toBe(22);
    expect(easy.every((p) => p.rating < 1000)).toBe(true);
    expect(loadPuzzles(FIXTURE, { minRating: 1000 }).every((p) => p.rating >= 1000)).toBe(true);
    expect(loadPuzzles(FIXTURE, { limit: 3 })).toHaveLength(3);
  });

  it("the built-in suite is the fixture, with a stable hash split", () => {
    expect(BUILTIN_PUZZLES_CSV).toBe(readFileSync(FIXTURE, "utf8"));
    const suite = createChessSuite();
    expect(suite.list()).toHaveLength(30);
    expect(suite.get("RQ5UP").split).toBe(splitOfPuzzle("RQ5UP", 0.5));
    const splits = suite.list().map((t) => t.split);
    expect(splits).toContain("train");
    expect(splits).toContain("heldout");
    const again = createChessSuite({ csvPath: FIXTURE }).list();
    expect(again.map((t) => `${t.id}:${t.split}`)).toEqual(suite.list().map((t) => `${t.id}:${t.split}`));
    expect(createChessSuite({ maxRating: 1000 }).list()).toHaveLength(22);
    const unknown = errorOf(() => suite.get("nope"));
    expect(unknown.code).toBe("task.unknown");
  });

  it("reads quoted fields, CRLF and a BOM", () => {
    const { records, problems } = readCsv('\uFEFFa,b\r\n"x,1","say ""hi"""\r\n\r\n"multi\nline",z\n');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x,1", 'say "hi"'] },
      { line: 4, fields: ["multi\nline", "z"] },
    ]);
    const quoted = `${HEADER}\n"${GOOD.split(",")[0]}",${GOOD.split(",").slice(1).join(",")}\n`;
    expect(parsePuzzlesCsv(quoted)[0]?.id).toBe("2KFep");
  });

  it.each([
    ["too few fields", "abc,8/8/8/8/8/8/8/8 w - - 0 1,e2e4 e7e5,500", "4 fields, the header has 9"],
    ["a non-integer rating", GOOD.replace(",399,", ",easy,"), "Rating"],
    ["an odd move list", GOOD.replace("c1f1 f8f1", "c1f1 f8f1 a2a3"), "even number"],
    ["a non-UCI move", GOOD.replace("c1f1 f8f1", "c1f1 Rf1#"), "UCI"],
    ["an illegal move", GOOD.replace("c1f1 f8f1", "c1f1 h8h6"), "illegal"],
    ["an invalid FEN", GOOD.replace("5r1k/", "5r1kk/"), "FEN"],
    ["an unclosed quote", `${GOOD.replace(",399,", ',"399,')}`, "quoted field is not closed"],
    ["a stray quote", GOOD.replace("mateIn1", 'mate"In1'), "quote inside"],
  ])("a row with %s is a UserError naming its line", (_name, bad, fragment) => {
    const text = `${HEADER}\n${GOOD}\n\n${bad}\n`;
    const err = errorOf(() => parsePuzzlesCsv(text, "bad.csv"));
    expect(isRehearsalError(err)).toBe(true);
    expect(err.code).toBe("chess.bad_puzzle_row");
    expect(err.message).toContain("bad.csv line 4:");
    expect(err.message).toContain(fragment);
    expect(err.details.line).toBe(4);
  });

  it("a missing header column, a duplicate id and a missing file are UserErrors", () => {
    expect(errorOf(() => parsePuzzlesCsv("PuzzleId,FEN,Rating\n")).message).toContain(
      "line 1: the header lacks Moves",
    );
    expect(errorOf(() => parsePuzzlesCsv(`${HEADER}\n${GOOD}\n${GOOD}\n`)).message).toContain(
      "line 3: duplicate",
    );
    expect(errorOf(() => parsePuzzlesCsv("")).code).toBe("chess.bad_puzzle_csv");
    expect(errorOf(() => loadPuzzles("/no/such/puzzles.csv")).code).toBe("chess.puzzle_file");
  });
});
