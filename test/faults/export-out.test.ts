import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrajectorySchema } from "../../src/core/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { cliInProcess } from "../export/cli.ts";
import { filesBelow, screenshotSearch } from "../export/helpers.ts";

/** `rehearsal export` on bad options and unusual --out targets: typed errors, exit codes, no debris. */
const dir = mkdtempSync(join(tmpdir(), "rehearsal-export-out-"));
const store = join(dir, "store");
const searchRun = "search_out";
let runId = "";
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const r = await cliInProcess([
    "--json",
    "run",
    "--env",
    "frozenlake",
    "--tasks",
    "4x4",
    "--policy",
    "random",
    "--episodes",
    "3",
    "--seed",
    "5",
    "--store",
    store,
  ]);
  expect(r.code, r.stderr).toBe(0);
  runId = (JSON.parse(r.stdout) as { runId: string }).runId;
  const s = openSqliteStore({ dir: store });
  try {
    await screenshotSearch(s, searchRun);
  } finally {
    s.close();
  }
});

const trajectories = (...extra: string[]) => [
  "export",
  "trajectories",
  "--run",
  runId,
  "--store",
  store,
  ...extra,
];

function expectTyped(r: { code: number; stderr: string }, code: number, errorCode: string): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).toContain(`error [${errorCode}]`);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe("export options are validated", () => {
  it("--status bogus is exit 2 naming the allowed statuses (it used to export nothing)", async () => {
    const r = await cliInProcess(trajectories("--status", "bogus"));
    expectTyped(r, 2, "export.invalid_option");
    expect(r.stderr).toContain("--status");
    expect(r.stderr).toContain("bogus");
    for (const s of ["running", "complete", "infra_failed", "aborted"]) expect(r.stderr).toContain(s);
    expect(r.stdout).toBe("");
  });

  it("--status complete filters, --format csv is exit 2", async () => {
    const ok = await cliInProcess(trajectories("--status", "complete"));
    expect(ok.code, ok.stderr).toBe(0);
    const lines = ok.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(TrajectorySchema.parse(JSON.parse(l)).status).toBe("complete");
    expectTyped(await cliInProcess(trajectories("--format", "csv")), 2, "export.invalid_option");
  });
});

describe("--out targets", () => {
  it("a directory is exit 2 naming the path and a fix, for every export", async () => {
    const target = mkdtempSync(join(dir, "as-dir-"));
    for (const args of [
      trajectories("--out", target),
      ["export", "tree", "--run", searchRun, "--store", store, "--out", target],
      ["export", "sft", "--run", searchRun, "--store", store, "--out", target],
    ]) {
      const r = await cliInProcess(args);
      expectTyped(r, 2, "export.out_is_directory");
      expect(r.stderr).toContain(target);
      expect(r.stderr).toContain("Fix:");
    }
    expect(filesBelow(target)).toEqual([]);
  });

  it("/dev/full is refused by name with exit 2 (it used to crash on an unhandled stream error)", async () => {
    for (const args of [
      trajectories("--out", "/dev/full"),
      ["export", "tree", "--run", searchRun, "--store", store, "--out", "/dev/full"],
      ["export", "sft", "--run", searchRun, "--store", store, "--out", "/dev/full"],
    ]) {
      const r = await cliInProcess(args);
      expectTyped(r, 2, "export.out_device");
      expect(r.stderr).toContain("/dev/full");
    }
  });

  it("a symlink is written through: the link stays and points at the new content", async () => {
    const out = mkdtempSync(join(dir, "link-"));
    mkdirSync(join(out, "real"));
    writeFileSync(join(out, "real", "t.jsonl"), "old\n");
    symlinkSync(join("real", "t.jsonl"), join(out, "t.jsonl"));
    const r = await cliInProcess(["--json", ...trajectories("--out", join(out, "t.jsonl"))]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ trajectories: 3, path: join(out, "real", "t.jsonl") });
    expect(lstatSync(join(out, "t.jsonl")).isSymbolicLink()).toBe(true);
    expect(
      readFileSync(join(out, "real", "t.jsonl"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(3);
    expect(filesBelow(out)).toEqual(["real/t.jsonl", "t.jsonl"]);
  });

  it("'-' is standard output; export sft refuses it (it writes images beside the file)", async () => {
    const r = await cliInProcess(trajectories("--out", "-"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
    expectTyped(
      await cliInProcess(["export", "sft", "--run", searchRun, "--store", store, "--out", "-"]),
      2,
      "export.out_stdout",
    );
  });
});

describe("unsuitable runs are refused the same way", () => {
  it("export tree and export sft on a non-search run are both export.not_search_run (exit 2)", async () => {
    const out = mkdtempSync(join(dir, "not-search-"));
    for (const command of ["tree", "sft"]) {
      const r = await cliInProcess([
        "export",
        command,
        "--run",
        runId,
        "--store",
        store,
        "--out",
        join(out, "x"),
      ]);
      expectTyped(r, 2, "export.not_search_run");
      expect(r.stderr).toContain(runId);
      expect(r.stderr).toContain(`export ${command} needs a search run`);
    }
    expect(filesBelow(out)).toEqual([]);
    const tree = await cliInProcess(["export", "tree", "--run", searchRun, "--store", store]);
    expect(tree.code, tree.stderr).toBe(0);
    expect((JSON.parse(tree.stdout) as { trees: unknown[] }).trees).toHaveLength(1);
  });
});
