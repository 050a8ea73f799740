import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  exportSft,
  exportTrees,
  SFT_EXPORT_DEFAULTS,
  ShareGptRecordSchema,
  TrlRecordSchema,
} from "../../src/export/index.ts";
import { openSqliteStore, type SqliteRunStore } from "../../src/store/index.ts";
import { noisyOraclePolicy, searchFrozenLake } from "../search/helpers.ts";

let dir: string;
let store: SqliteRunStore;
const runId = "search_export";
const base = { ...SFT_EXPORT_DEFAULTS, runId };
let trlOut: string;
let trlReport: ReturnType<typeof exportSft>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-export-"));
  store = openSqliteStore({ dir: join(dir, "store") });
  await searchFrozenLake({
    store,
    runId,
    tasks: ["4x4", "random-5-0", "random-5-1", "random-5-3", "8x8"],
    policy: noisyOraclePolicy(0.6),
  });
  // The default TRL export, written once: the first test reads it, the fraction test compares with it.
  trlOut = join(dir, "trl.jsonl");
  trlReport = exportSft(store, { ...base, out: trlOut });
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("SFT export", () => {
  it("writes validated TRL records with one assistant target, provenance and weights", () => {
    const report = trlReport;
    expect(report.records).toBeGreaterThan(0);
    const records = lines(trlOut).map((r) => TrlRecordSchema.parse(r));
    expect(records).toHaveLength(report.records);
    for (const r of records) {
      expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
      expect(JSON.parse(r.messages[2]!.content as string).type).toBe("move");
      expect(r.metadata.leafIds.length).toBeGreaterThan(0);
      expect(r.weight).toBeGreaterThan(0);
    }
    // Steps are unique per (node, step index).
    const keys = records.map((r) => `${r.metadata.nodeId}#${r.metadata.stepIndex}`);
    expect(new Set(keys).size).toBe(keys.length);
    // Mean weight over the exported set is 1.
    const mean = records.reduce((a, r) => a + (r.weight ?? 0), 0) / records.length;
    expect(mean).toBeCloseTo(1, 9);
  });

  it("gives each task a pre-clip mass of (1 - SR)^beta; tasks without success contribute nothing", () => {
    const report = exportSft(store, { ...base, out: join(dir, "mass.jsonl"), wMax: 1000 });
    const withSuccess = report.perTask.filter((t) => t.uniqueSteps > 0);
    expect(withSuccess.length).toBeGreaterThanOrEqual(2);
    for (const t of report.perTask) {
      if (t.uniqueSteps === 0) {
        expect(t.mass).toBe(0);
        expect(t.records).toBe(0);
        continue;
      }
      expect(t.rawMass).toBeCloseTo((1 - t.successRate) ** 0.5, 12);
    }
    // Unclipped, final masses keep the ratios of the pre-clip masses.
    const [a, b] = withSuccess;
    expect(a!.mass / b!.mass).toBeCloseTo(a!.rawMass / b!.rawMass, 9);
  });

  it("materialises weights into repetitions within ±1 record of each task's mass", () => {
    const out = join(dir, "mat.jsonl");
    const report = exportSft(store, { ...base, out, materializeWeights: true, wMax: 1.2 });
    const records = lines(out).map((r) => TrlRecordSchema.parse(r));
    expect(records.every((r) => r.weight === undefined)).toBe(true);
    expect(report.materializeTolerance).toBe(1);
    const weighted = exportSft(store, { ...base, out: join(dir, "w.jsonl"), wMax: 1.2 });
    for (const t of weighted.perTask) {
      const count = records.filter((r) => r.metadata.taskId === t.taskId).length;
      expect(Math.abs(count - t.mass)).toBeLessThanOrEqual(1);
    }
    expect(weighted.perTask.some((t) => t.clipped)).toBe(true);
  });

  it("is byte-identical for the same store and seed, in both formats", () => {
    for (const format of ["trl", "sharegpt"] as const) {
      const a = join(dir, `a-${format}.jsonl`);
      const b = join(dir, `b-${format}.jsonl`);
      exportSft(store, { ...base, format, out: a, materializeWeights: true, seed: "7" });
      exportSft(store, { ...base, format, out: b, materializeWeights: true, seed: "7" });
      expect(readFileSync(b, "utf8")).toBe(readFileSync(a, "utf8"));
    }
  });

  it("writes ShareGPT records for LLaMA-Factory", () => {
    const out = join(dir, "sg.jsonl");
    exportSft(store, { ...base, out, format: "sharegpt" });
    for (const r of lines(out)) {
      const rec = ShareGptRecordSchema.parse(r);
      expect(rec.conversations.map((c) => c.from)).toEqual(["human", "gpt"]);
      expect(rec.system).toContain("one action per turn");
    }
  });

  it("keeps a seeded fraction of each task's successful leaves", () => {
    const full = trlReport;
    const part = exportSft(store, { ...base, out: join(dir, "part.jsonl"), fraction: 0.3 });
    for (const t of part.perTask) {
      const f = full.perTask.find((x) => x.taskId === t.taskId)!;
      if (f.keptLeaves === 0) continue;
      expect(t.keptLeaves).toBe(Math.max(1, Math.round(0.3 * f.keptLeaves)));
      expect(t.uniqueSteps).toBeLessThanOrEqual(f.uniqueSteps);
    }
    expect(() => exportSft(store, { ...base, out: join(dir, "x.jsonl"), fraction: 1.5 })).toThrow(/fraction/);
  });

  it("shows earlier observations with a window and rejects screenshots that do not exist", () => {
    const out = join(dir, "win.jsonl");
    exportSft(store, { ...base, out, window: 3 });
    const late = lines(out)
      .map((r) => TrlRecordSchema.parse(r))
      .find((r) => r.metadata.stepIndex >= 2);
    expect(late?.messages[1]?.content).toContain("Earlier observation (step");
    expect(() =>
      exportSft(store, { ...base, out: join(dir, "shot.jsonl"), observation: "screenshot" }),
    ).toThrow(/no screenshot/);
  });

  it("exports trees as JSON", () => {
    const trees = exportTrees(store, runId) as {
      trees: Array<{ taskId: string; nodes: Array<{ parentId: string | null; gateLog: unknown[] }> }>;
    };
    expect(trees.trees.map((t) => t.taskId)).toEqual([
      "4x4",
      "random-5-0",
      "random-5-1",
      "random-5-3",
      "8x8",
    ]);
    expect(trees.trees[0]?.nodes.filter((n) => n.parentId === null)).toHaveLength(1);
  });
});
