import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.ts";
import { json, runCli } from "../cli/run-cli.ts";

describe("SKL episodes in the run store", () => {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-skl-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("skl frozenlake records every episode as a run of kind skl that runs show and export read", () => {
    const store = join(dir, "store");
    const args = ["--train-maps", "2", "--test-maps", "1", "--iterations", "2", "--store", store];
    const r = runCli(["--json", "skl", "frozenlake", ...args, "--out-dir", join(dir, "out")]);
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

    const show = runCli(["--json", "runs", "show", runId, "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    expect(json<{ trajectories: unknown[] }>(show).trajectories).toHaveLength(episodes);

    const out = join(dir, "skl.jsonl");
    const exp = runCli([
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
    expect(exp.code, exp.stderr).toBe(0);
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(episodes);
    const first = JSON.parse(lines[0] as string) as { steps: Array<{ observation: { stateKey?: string } }> };
    expect(first.steps[0]?.observation.stateKey).toMatch(/random-5-/);
  });
});
