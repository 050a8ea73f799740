import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrajectorySchema } from "../../src/core/index.ts";
import { json, runCli, runMain } from "./run-cli.ts";

let dir: string;
let store: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-cli-"));
  store = join(dir, "store");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("rehearsal CLI", () => {
  let runId = "";

  it("run records FrozenLake episodes and prints a JSON summary", async () => {
    const r = await runMain([
      "--json",
      "run",
      "--env",
      "frozenlake",
      "--tasks",
      "4x4,8x8",
      "--policy",
      "random",
      "--episodes",
      "6",
      "--seed",
      "5",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{
      runId: string;
      status: string;
      summary: {
        episodes: number;
        successRate: number;
        meanSteps: number;
        parseErrors: number;
        perTask: unknown[];
      };
    }>(r);
    expect(out.status).toBe("complete");
    expect(out.summary.episodes).toBe(12);
    expect(out.summary.parseErrors).toBe(0);
    expect(out.summary.meanSteps).toBeGreaterThan(0);
    expect(out.summary.perTask).toHaveLength(2);
    runId = out.runId;
  });

  it("prints a human summary table without --json", async () => {
    const r = await runMain([
      "run",
      "--env",
      "frozenlake",
      "--tasks",
      "4x4",
      "--policy",
      "oracle",
      "-n",
      "2",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/success rate/);
    expect(r.stdout).toMatch(/parse errors/);
  });

  it("the same seed gives the same episodes", async () => {
    const args = [
      "--json",
      "run",
      "--env",
      "frozenlake",
      "--tasks",
      "8x8",
      "--policy",
      "random",
      "-n",
      "5",
      "--seed",
      "9",
      "--store",
      store,
    ];
    const a = json<{ summary: unknown }>(await runMain(args));
    const b = json<{ summary: unknown }>(await runMain(args));
    expect(b.summary).toEqual(a.summary);
  });

  it("runs list and runs show", async () => {
    const list = json<{ runs: Array<{ id: string }> }>(
      await runMain(["--json", "runs", "list", "--store", store]),
    );
    expect(list.runs.map((r) => r.id)).toContain(runId);
    const show = await runMain(["--json", "runs", "show", runId, "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    const s = json<{ run: { id: string; codeVersion: string }; trajectories: unknown[] }>(show);
    expect(s.run.id).toBe(runId);
    expect(s.run.codeVersion).toMatch(/^rehearsal@/);
    expect(s.trajectories).toHaveLength(12);
    expect((await runMain(["runs", "show", "run_nope", "--store", store])).code).toBe(2);
  });

  it("export trajectories writes valid JSONL", async () => {
    const out = join(dir, "t.jsonl");
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
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(12);
    for (const line of lines) {
      const t = TrajectorySchema.parse(JSON.parse(line));
      expect(t.status).toBe("complete");
      expect(t.steps.length).toBeGreaterThan(0);
      expect(t.outcome).toBeDefined();
      expect(t.steps.map((s) => s.index)).toEqual(t.steps.map((_, i) => i));
    }
    const stdout = await runMain(["export", "trajectories", "--run", runId, "--store", store]);
    expect(stdout.stdout.trim().split("\n")).toHaveLength(12);
    expect(
      (await runMain(["export", "trajectories", "--run", runId, "--format", "csv", "--store", store])).code,
    ).toBe(2);
  });

  it("a config file is validated and names the bad field", async () => {
    const good = join(dir, "good.yaml");
    writeFileSync(
      good,
      `env: frozenlake\ntasks: [4x4]\npolicy: scripted\nscript:\n  - {type: move, direction: right}\n  - {type: move, direction: right}\nepisodes: 2\nenvOptions: {slippery: false}\nstore: ${store}\n`,
    );
    const ok = await runMain(["--json", "run", "--config", good]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json<{ policy: string }>(ok).policy).toBe("scripted");

    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "env: frozenlake\nepisodes: many\n");
    const r = await runMain(["--json", "run", "--config", bad]);
    expect(r.code).toBe(2);
    const err = json<{ error: { code: string; category: string; message: string } }>(r);
    expect(err.error.category).toBe("user");
    expect(err.error.message).toContain("episodes");

    const unknownKey = join(dir, "unknown.json");
    writeFileSync(unknownKey, JSON.stringify({ env: "frozenlake", epsiodes: 3 }));
    const u = await runMain(["run", "--config", unknownKey]);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain("epsiodes");

    const syntax = join(dir, "syntax.yaml");
    writeFileSync(syntax, "env: [frozenlake\n");
    expect((await runMain(["run", "--config", syntax])).stderr).toMatch(/not valid YAML/);
    expect((await runMain(["run", "--config", join(dir, "missing.yaml")])).code).toBe(2);
  });

  it("bad input gets a typed error and exit code 2", async () => {
    const unknownTask = await runMain([
      "--json",
      "run",
      "--env",
      "frozenlake",
      "--tasks",
      "9x9",
      "--store",
      store,
    ]);
    expect(unknownTask.code).toBe(2);
    expect(json<{ error: { code: string } }>(unknownTask).error.code).toBe("task.unknown");
    const badEnvOption = await runMain(["run", "--env", "frozenlake", "--episodes", "x", "--store", store]);
    expect(badEnvOption.code).toBe(2);
    expect(badEnvOption.stderr).toContain("--episodes");
    expect((await runMain(["no-such-command"])).code).toBe(2);
  });

  it("plays chess puzzles: the oracle solves them, a random player does not", async () => {
    const oracle = await runMain([
      "--json",
      "run",
      "--env",
      "chess",
      "--policy",
      "oracle",
      "-n",
      "1",
      "--store",
      store,
    ]);
    expect(oracle.code, oracle.stderr).toBe(0);
    const o = json<{ summary: { successRate: number; episodes: number } }>(oracle);
    expect(o.summary.episodes).toBeGreaterThanOrEqual(10);
    expect(o.summary.successRate).toBe(1);
    const random = json<{ summary: { successRate: number } }>(
      await runMain([
        "--json",
        "run",
        "--env",
        "chess",
        "--policy",
        "random",
        "-n",
        "1",
        "--seed",
        "2",
        "--store",
        store,
      ]),
    );
    expect(random.summary.successRate).toBeLessThan(0.5);
  });

  it("skl frozenlake runs all loops and writes a JSON report and an SVG chart", async () => {
    const outDir = join(dir, "skl");
    const r = await runMain([
      "--json",
      "skl",
      "frozenlake",
      "--slip",
      "asymmetric",
      "--train-maps",
      "4",
      "--test-maps",
      "3",
      "--iterations",
      "2",
      "--out-dir",
      outDir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{
      report: { methods: Array<{ method: string; iterations: unknown[] }> };
      files: { svg: string };
    }>(r);
    expect(out.report.methods.map((m) => m.method)).toEqual([
      "no-reflection",
      "trajectory-reflection",
      "stateful-root",
      "stateful-bootstrap",
    ]);
    expect(out.report.methods.every((m) => m.iterations.length === 2)).toBe(true);
    expect(readFileSync(out.files.svg, "utf8")).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect((await runMain(["skl", "frozenlake", "--slip", "sideways", "--out-dir", outDir])).code).toBe(2);
    const saved = JSON.parse(
      readFileSync(
        (out.files as unknown as { knowledge: Record<string, string> }).knowledge["stateful-bootstrap"]!,
        "utf8",
      ),
    ) as { entries: unknown[] };
    expect(saved.entries.length).toBeGreaterThan(0);
  });

  it("skl chess runs SKL-RL per expert rate against its no-simulation baseline", async () => {
    const outDir = join(dir, "skl-chess");
    const r = await runMain([
      "--json",
      "skl",
      "chess",
      "--puzzles",
      "2",
      "--depth",
      "2",
      "--rates",
      "0.5,0.25",
      "--out-dir",
      outDir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{
      rates: Array<{ expertRate: number; skl: { puzzles: number }; baseline: { puzzles: number } | null }>;
    }>(r);
    expect(out.rates.map((x) => x.expertRate)).toEqual([0.5, 0.25]);
    expect(out.rates.every((x) => x.skl.puzzles === 2 && x.baseline?.puzzles === 2)).toBe(true);
  });

  it("skl sd writes D_base, D_distill and D_reflect with λ1 and λ2 in the manifest", async () => {
    const outDir = join(dir, "skl-sd");
    const r = await runMain([
      "--json",
      "skl",
      "sd",
      "--maps",
      "30",
      "--slip",
      "asymmetric",
      "--iterations",
      "2",
      "--lambda1",
      "0.5",
      "--lambda2",
      "0.25",
      "--out-dir",
      outDir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(manifest)).toContain("0.25");
    const distill = readFileSync(join(outDir, "d_distill.jsonl"), "utf8").trim().split("\n").filter(Boolean);
    expect(distill.length).toBeGreaterThan(0);
    for (const line of distill) expect(JSON.parse(line).messages.at(-1).role).toBe("assistant");
  });

  it("demo runs on the embedded defaults", async () => {
    const r = await runMain([
      "--json",
      "demo",
      "frozenlake",
      "--episodes",
      "3",
      "--store",
      join(dir, "demo"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{ rows: Array<{ policy: string; dynamics: string; successRate: number }> }>(r);
    expect(out.rows).toHaveLength(8);
    const oracleFlat = out.rows.filter((x) => x.policy === "oracle" && x.dynamics === "non-slippery");
    expect(oracleFlat.every((x) => x.successRate === 1)).toBe(true);
  });
});

// The tests above call `main()` in this process; these check what only the bin itself shows.
describe("the rehearsal bin", () => {
  it("exits 0 with a JSON result on stdout, and 2 with the error on stderr for an unknown command", () => {
    const ok = runCli(["--json", "runs", "list", "--store", join(dir, "bin-store")]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json<{ runs: unknown[] }>(ok).runs).toEqual([]);
    const bad = runCli(["no-such-command"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("no-such-command");
  });
});
