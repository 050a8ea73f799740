import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chess } from "chess.js";
import { afterAll, describe, expect, it } from "vitest";
import { createRandom, type Observation, type Task } from "../../src/core/index.ts";
import { legalUciMovesFromFen } from "../../src/envs/chess/index.ts";
import { writeSdFiles, writeValidatedJsonl } from "../../src/export/index.ts";
import { KnowledgeEntrySchema } from "../../src/knowledge/index.ts";
import { createMixedEnginePolicy } from "../../src/policies/chess-simulation-policy.ts";

const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

describe("legal moves from a FEN (chess.js stays in envs/chess)", () => {
  it("lists the side to move's legal moves in UCI, sorted; undefined for a string that is not a FEN", () => {
    const moves = legalUciMovesFromFen(START);
    expect(moves).toHaveLength(20);
    expect(moves).toEqual([...(moves ?? [])].sort());
    expect(moves).toContain("e2e4");
    expect(moves).toContain("g1f3");
    // Promotions carry their piece, as the chess environment's actions do.
    const promotion = legalUciMovesFromFen("8/P7/8/8/8/8/8/k6K w - - 0 1");
    expect(promotion).toEqual(expect.arrayContaining(["a7a8q", "a7a8n"]));
    expect(legalUciMovesFromFen("not a fen")).toBeUndefined();
    // Checkmate: no legal move.
    expect(legalUciMovesFromFen(new Chess("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").fen())).toEqual([]);
  });

  it("the mixed engine policy draws from the FEN's moves, and from the listed actions when data.fen is no FEN", async () => {
    const engine = { bestMove: async () => null };
    const policy = createMixedEnginePolicy({ expertRate: 0, pool: engine });
    const task = { id: "t", family: "chess", instruction: "", split: "train" } as unknown as Task;
    const observation = (fen: string, listed: string[]): Observation =>
      ({
        text: "",
        data: { fen },
        legalActions: listed.map((move) => ({ type: "uci", move })),
      }) as unknown as Observation;
    const propose = (o: Observation) =>
      policy.propose(
        { task, observation: o, history: [], stepIndex: 0 },
        { n: 8, temperature: 1, random: createRandom("legal-moves") },
      );
    const fromFen = await propose(observation(START, ["a2a3"]));
    const legal = new Set(legalUciMovesFromFen(START));
    expect(fromFen.candidates.every((c) => c.action?.type === "uci" && legal.has(c.action.move))).toBe(true);
    const fallback = await propose(observation("no fen", ["a2a3"]));
    expect(fallback.candidates.map((c) => (c.action?.type === "uci" ? c.action.move : null))).toEqual(
      Array(8).fill("a2a3"),
    );
  });
});

describe("SKL dataset files are replaced atomically", () => {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-skl-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a JSONL dataset whose path is a directory is refused as a user error, leaving nothing behind", () => {
    const target = join(dir, "taken");
    mkdirSync(target);
    expect(() => writeValidatedJsonl(target, KnowledgeEntrySchema, [])).toThrow(
      expect.objectContaining({ code: "export.out_is_directory", category: "user" }),
    );
    const written = join(dir, "sub", "knowledge.jsonl");
    writeValidatedJsonl(written, KnowledgeEntrySchema, []);
    expect(readFileSync(written, "utf8")).toBe("");
  });

  it("the SKL-SD files: a failing dataset leaves the manifest as it was (no half-written run)", async () => {
    const outDir = join(dir, "sd");
    mkdirSync(join(outDir, "d_reflect.jsonl"), { recursive: true });
    writeFileSync(join(outDir, "manifest.json"), "old\n");
    const summary = { iterations: [], writer: "statistical", taskIds: [] };
    const output = { outDir, lambda1: 1, lambda2: 1, options: {} };
    const records = { base: [], distill: [], reflect: [] };
    await expect(writeSdFiles(output, records, summary)).rejects.toMatchObject({
      code: "export.out_is_directory",
    });
    expect(readFileSync(join(outDir, "manifest.json"), "utf8")).toBe("old\n");
    rmSync(join(outDir, "d_reflect.jsonl"), { recursive: true });
    const { manifest } = await writeSdFiles(output, records, summary);
    expect(JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8"))).toEqual(manifest);
    expect(manifest.interrupted).toBeUndefined();
  });
});
