import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.ts";
import { recordFrozenLakeRun } from "../worldmodel/traces-helpers.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-worldbook-eval-"));
const store = join(dir, "store");
const book = join(dir, "wb");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface EvalJson {
  heldout: string;
  report: {
    family: string;
    fidelity: { transitions: number; systems: Array<{ system: string }>; tv: { noiseFloor: number | null } };
    multiTurn?: unknown[];
    ablations?: unknown;
  };
  w2r?: { overall: { episodes: number }; tasks: Array<{ taskId: string }> };
}

beforeAll(async () => {
  const s = openSqliteStore({ dir: store });
  await recordFrozenLakeRun(s, { runId: "run_fl", taskIds: ["4x4"], episodes: 40 });
  s.close();
  const built = await runMain([
    "--json",
    "worldbook",
    "build",
    "--runs",
    "run_fl",
    "--store",
    store,
    "--out",
    book,
  ]);
  expect(built.code, built.stderr).toBe(0);
}, 300_000);

describe("rehearsal worldbook eval", () => {
  it("scores the five systems on DIR/heldout/test.jsonl with TV, multi-turn and ablations", async () => {
    const r = await runMain(["--json", "worldbook", "eval", book]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<EvalJson>(r);
    expect(out.heldout).toBe(join(book, "heldout", "test.jsonl"));
    expect(out.report.family).toBe("frozenlake");
    expect(out.report.fidelity.systems.map((s) => s.system)).toEqual([
      "copy",
      "retrieval",
      "rules",
      "gates",
      "full",
    ]);
    expect(out.report.fidelity.transitions).toBeGreaterThan(0);
    expect(out.report.fidelity.tv.noiseFloor).not.toBeNull();
    expect(out.report.multiTurn).toHaveLength(3);
    expect(out.report.ablations).toBeDefined();
    expect(out.w2r).toBeUndefined();
    const text = await runMain(["worldbook", "eval", book, "--no-ablations"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^system +n +exact/m);
    expect(text.stdout).toContain("multi-turn consistency");
    expect(text.stdout).not.toContain("ablations:");
  }, 300_000);

  it("--systems, --no-* and --w2r: chosen systems only, W2R episodes from the worldbook's starts", async () => {
    const r = await runMain([
      "--json",
      "worldbook",
      "eval",
      book,
      "--systems",
      "copy,full",
      "--no-multi-turn",
      "--no-ablations",
      "--w2r",
      "--w2r-episodes",
      "2",
      "--max-steps",
      "12",
      "--env-options",
      '{"slippery":true}',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<EvalJson>(r);
    expect(out.report.fidelity.systems.map((s) => s.system)).toEqual(["copy", "full"]);
    expect(out.report.multiTurn).toBeUndefined();
    expect(out.report.ablations).toBeUndefined();
    expect(out.w2r?.tasks.map((t) => t.taskId)).toEqual(["4x4"]);
    expect(out.w2r?.overall.episodes).toBe(2);
  }, 300_000);

  it("--runs evaluates on the runs' traces instead of the held-out file", async () => {
    const r = await runMain([
      "--json",
      "worldbook",
      "eval",
      book,
      "--runs",
      "run_fl",
      "--store",
      store,
      "--systems",
      "copy",
      "--no-multi-turn",
      "--no-ablations",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<EvalJson>(r);
    expect(out.heldout).toBe("(given)");
    const all = json<EvalJson>(
      await runMain([
        "--json",
        "worldbook",
        "eval",
        book,
        "--systems",
        "copy",
        "--no-multi-turn",
        "--no-ablations",
      ]),
    );
    expect(out.report.fidelity.transitions).toBeGreaterThan(all.report.fidelity.transitions);
  }, 300_000);

  it("user errors exit 2 naming the problem: an unknown system, no held-out traces, bad --env-options", async () => {
    const bad = await runMain(["--json", "worldbook", "eval", book, "--systems", "copy,oracle"]);
    expect(bad.code).toBe(2);
    expect(json<{ error: { code: string; message: string } }>(bad).error).toMatchObject({
      code: "worldbook_eval.bad_system",
      message: expect.stringContaining("oracle"),
    });
    const bare = join(dir, "bare");
    cpSync(book, bare, { recursive: true });
    rmSync(join(bare, "heldout"), { recursive: true });
    const none = await runMain(["--json", "worldbook", "eval", bare]);
    expect(none.code).toBe(2);
    expect(json<{ error: { code: string } }>(none).error.code).toBe("worldbook_eval.no_heldout");
    const opts = await runMain(["worldbook", "eval", book, "--env-options", "[1]"]);
    expect(opts.code).toBe(2);
    expect(opts.stderr).toContain("expected a JSON object");
  }, 300_000);
});

describe("rehearsal worldbook experiment", () => {
  it("--families frozenlake --scale small: one table of both slip settings, report files in --out", async () => {
    const out = join(dir, "experiment");
    const r = await runMain([
      "worldbook",
      "experiment",
      "--families",
      "frozenlake",
      "--scale",
      "small",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^family +system +n +exact/m);
    expect(r.stdout).toMatch(/^frozenlake \(0, 2\/3\) +full +\d+ /m);
    expect(r.stdout).toContain("slip probabilities (recovered vs truth)");
    expect(r.stdout).toContain(`report: ${out}/report.md`);
    const bad = await runMain([
      "--json",
      "worldbook",
      "experiment",
      "--families",
      "frozenlake,go",
      "--out",
      out,
    ]);
    expect(bad.code).toBe(2);
    expect(json<{ error: { code: string } }>(bad).error.code).toBe("experiment.bad_family");
  }, 300_000);
});
