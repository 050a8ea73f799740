import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SklTrajectoryRecordSchema } from "../../src/experiments/index.ts";
import { createJsonFilePersistence, createSqlitePersistence } from "../../src/knowledge/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { json, runMain } from "../cli/run-cli.ts";

/** `rehearsal export trajectories --run` of a run, as JSONL to `out`. */
async function exportTrajectories(runId: string, store: string, out: string): Promise<void> {
  const r = await runMain([
    "export",
    "trajectories",
    "--run",
    runId,
    "--format",
    "jsonl",
    "--out",
    out,
    "--store",
    store,
  ]);
  expect(r.code, r.stderr).toBe(0);
}

function jsonl(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as unknown);
}

describe("SKL episodes in the run store", () => {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-skl-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("skl frozenlake records every episode as a run of kind skl that runs show and export read", async () => {
    const store = join(dir, "store");
    const args = ["--train-maps", "2", "--test-maps", "1", "--iterations", "2", "--store", store];
    const r = await runMain(["--json", "skl", "frozenlake", ...args, "--out-dir", join(dir, "out")]);
    expect(r.code, r.stderr).toBe(0);
    const { runId, report } = json<{ runId: string; report: { methods: unknown[] } }>(r);
    // 4 methods × 2 iterations × (2 train + 1 held-out) maps.
    const episodes = 4 * 2 * 3;
    expect(report.methods).toHaveLength(4);

    const db = openSqliteStore({ dir: store });
    try {
      const run = db.getRun(runId);
      expect(run?.kind).toBe("skl");
      expect(run?.status).toBe("complete");
      expect(run?.config).toMatchObject({ experiment: "frozenlake" });
      const headers = db.listTrajectories(runId);
      expect(headers).toHaveLength(episodes);
      expect(headers.every((h) => h.status === "complete" && h.stepCount > 0)).toBe(true);
      expect(db.listTasks(runId).map((t) => t.id)).toEqual(["random-5-0", "random-5-1", "random-5-50"]);
    } finally {
      db.close();
    }

    const show = await runMain(["--json", "runs", "show", runId, "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    expect(json<{ trajectories: unknown[] }>(show).trajectories).toHaveLength(episodes);

    const out = join(dir, "skl.jsonl");
    await exportTrajectories(runId, store, out);
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(episodes);
    const first = JSON.parse(lines[0] as string) as { steps: Array<{ observation: { stateKey?: string } }> };
    expect(first.steps[0]?.observation.stateKey).toMatch(/random-5-/);
  });

  it("skl frozenlake --knowledge sqlite keeps each method's table in the store's database, as json would", async () => {
    const args = ["--train-maps", "2", "--test-maps", "1", "--iterations", "2", "--seed", "4"];
    const run = async (where: string) => {
      const store = join(dir, `knowledge-${where}`);
      const r = await runMain([
        "--json",
        "skl",
        "frozenlake",
        ...args,
        "--knowledge",
        where,
        "--store",
        store,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const out = json<{
        runId: string;
        files: { knowledge: Record<string, string>; knowledgeStorage: string; knowledgeDatabase?: string };
      }>(r);
      return { store, ...out };
    };
    const sqlite = await run("sqlite");
    const files = await run("json");
    expect(sqlite.files.knowledgeStorage).toBe("sqlite");
    expect(sqlite.files.knowledgeDatabase).toBe(join(sqlite.store, "rehearsal.db"));
    // No knowledge file next to the store: the tables are in its database.
    expect(readdirSync(sqlite.store).filter((f) => f.endsWith(".knowledge.json"))).toEqual([]);
    const methods = Object.keys(files.files.knowledge);
    expect(methods).toHaveLength(4);
    expect(Object.keys(sqlite.files.knowledge)).toEqual(methods);
    for (const method of methods) {
      const name = sqlite.files.knowledge[method] as string;
      expect(name).toBe(`${sqlite.runId}/${method}`);
      const stored = await createSqlitePersistence({ dir: sqlite.store, name }).load();
      const saved = await createJsonFilePersistence(files.files.knowledge[method] as string).load();
      const sortKey = (e: { key: string; version: number }) => `${e.key}\u0000${e.version}`;
      const sorted = <T extends { key: string; version: number }>(es: T[]) =>
        [...es].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
      expect(sorted(stored)).toEqual(sorted(saved));
      if (method !== "no-reflection") expect(stored.length).toBeGreaterThan(0);
    }
    expect(
      (await runMain(["skl", "frozenlake", ...args, "--knowledge", "yaml", "--store", sqlite.store])).code,
    ).toBe(2);
  }, 120_000);

  it("skl chess records its real episodes (SKL-RL and baseline) with z_hat in the steps; runs show and export read them", async () => {
    const store = join(dir, "chess-store");
    const outDir = join(dir, "chess-out");
    const r = await runMain([
      "--json",
      "skl",
      "chess",
      "--puzzles",
      "2",
      "--rates",
      "0.5",
      "--depth",
      "2",
      "--seed",
      "3",
      "--knowledge",
      "sqlite",
      "--store",
      store,
      "--out-dir",
      outDir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { runId, status } = json<{ runId: string; status: string }>(r);
    expect(status).toBe("complete");
    const datasets = jsonl(join(outDir, "rate-0.500", "trajectories.jsonl")).map((t) =>
      SklTrajectoryRecordSchema.parse(t),
    );
    expect(datasets).toHaveLength(2);

    const show = await runMain(["--json", "runs", "show", runId, "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    const shown = json<{
      run: { kind: string; status: string };
      trajectories: Array<{ id: string; status: string; stepCount: number }>;
    }>(show);
    expect(shown.run).toMatchObject({ kind: "skl", status: "complete" });
    // Per puzzle: the SKL-RL episode, then the acting policy alone.
    expect(shown.trajectories).toHaveLength(4);
    expect(shown.trajectories.every((t) => t.status === "complete" && t.stepCount > 0)).toBe(true);

    const out = join(dir, "chess.jsonl");
    await exportTrajectories(runId, store, out);
    type Stored = {
      id: string;
      steps: Array<{ action: { move: string }; reward: number; info: { skl?: Record<string, unknown> } }>;
    };
    const exported = jsonl(out) as Stored[];
    expect(exported).toHaveLength(4);
    const skl = exported.filter((t) => t.id.includes(":skl-rl:"));
    const baseline = exported.filter((t) => t.id.includes(":skl-rl-baseline:"));
    expect(skl).toHaveLength(2);
    expect(baseline).toHaveLength(2);
    for (const [i, t] of skl.entries()) {
      const dataset = datasets[i];
      expect(t.steps.map((s) => s.action.move)).toEqual(dataset?.steps.map((s) => s.action));
      expect(t.steps.reduce((a, s) => a + s.reward, 0)).toBe(dataset?.reward);
      for (const [k, s] of t.steps.entries()) {
        const step = dataset?.steps[k];
        expect(s.info.skl).toEqual({
          stateKey: step?.stateKey,
          actionSource: step?.actionSource,
          zVersion: step?.z.version,
          zHat: step?.zHat,
          branches: step?.simulations.length,
        });
      }
    }
    for (const t of baseline) expect(t.steps.every((s) => s.info.skl === undefined)).toBe(true);

    // --knowledge sqlite: the rate's table is also in the store's database, the same as knowledge.jsonl.
    const table = await createSqlitePersistence({ dir: store, name: `${runId}/rate-0.500` }).load();
    const file = jsonl(join(outDir, "rate-0.500", "knowledge.jsonl")) as Array<{
      key: string;
      version: number;
    }>;
    expect(table.length).toBe(file.length);
    expect(new Set(table.map((e) => `${e.key}@${e.version}`))).toEqual(
      new Set(file.map((e) => `${e.key}@${e.version}`)),
    );
    expect(existsSync(join(store, "rehearsal.db"))).toBe(true);
  }, 120_000);
});
