import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledBin } from "../cli/compiled-bin.ts";
import { cliInProcess } from "../export/cli.ts";

/**
 * A disk that fills up during an export. The file size limit (`ulimit -f`) makes the kernel refuse
 * writes past it (EFBIG) in a child process, a real write failure without filling a real disk.
 */
/** The real bin, in the layout of an installed package (compiled once: nothing to write at start-up). */
let bin = "";
const dir = mkdtempSync(join(tmpdir(), "rehearsal-export-full-"));
const store = join(dir, "store");
let runId = "";
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  bin = await compiledBin();
  const r = await cliInProcess([
    "--json",
    "run",
    "--env",
    "frozenlake",
    "--tasks",
    "8x8",
    "--policy",
    "random",
    "--episodes",
    "40",
    "--seed",
    "3",
    "--store",
    store,
  ]);
  expect(r.code, r.stderr).toBe(0);
  runId = (JSON.parse(r.stdout) as { runId: string }).runId;
}, 120_000);

/** The CLI in a shell whose file size limit is `kib` KiB. */
function cliWithFileLimit(kib: number, args: string[]) {
  const r = spawnSync("bash", ["-c", `ulimit -f ${kib} && exec "$0" "$@"`, process.execPath, bin, ...args], {
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe("export to a disk that fills up", () => {
  it("is exit 3 with a typed error, and leaves the old file and no temporary file", async () => {
    const all = await cliInProcess(["export", "trajectories", "--run", runId, "--store", store]);
    expect(all.code, all.stderr).toBe(0);
    const size = Buffer.byteLength(all.stdout);
    const limitKib = 64;
    expect(size).toBeGreaterThan(2 * limitKib * 1024); // the export cannot fit under the limit
    const out = mkdtempSync(join(dir, "out-"));
    const target = join(out, "t.jsonl");
    writeFileSync(target, "previous export\n");
    const args = ["export", "trajectories", "--run", runId, "--store", store, "--out", target];
    const r = cliWithFileLimit(limitKib, args);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("error [export.write_failed]");
    expect(r.stderr).toContain(target);
    expect(r.stderr).toContain("unchanged");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(target, "utf8")).toBe("previous export\n");
    expect(readdirSync(out)).toEqual(["t.jsonl"]);
    // Without the limit the same command replaces the file whole.
    const ok = await cliInProcess(args);
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync(target).size).toBe(size);
  }, 240_000);
});
