import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-honesty-"));
const store = join(dir, "store");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type ErrorOut = { error: { code: string; category: string; message: string } };

shareBrowserAcrossFile();

describe("CLI honesty: every bad input is a typed user error (exit 2), JSON on stdout with --json", () => {
  it("commander's argument errors are a JSON object on stdout with --json", async () => {
    const r = await runMain(["--json", "run", "--no-such-flag"]);
    expect(r.code).toBe(2);
    const out = json<ErrorOut>(r);
    expect(out.error.category).toBe("user");
    expect(out.error.message).toContain("--no-such-flag");
    const plain = await runMain(["run", "--no-such-flag"]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toContain("unknown option '--no-such-flag'");
  });

  it("runs list --kind bogus is an error naming the kinds", async () => {
    const r = await runMain(["--json", "runs", "list", "--kind", "bogus", "--store", store]);
    expect(r.code).toBe(2);
    expect(json<ErrorOut>(r).error.message).toMatch(/bogus.*run, search, eval/);
  });

  it("eval --rollouts 0 names --rollouts", async () => {
    const r = await runMain(["--json", "eval", "--env", "frozenlake", "--rollouts", "0", "--store", store]);
    expect(r.code).toBe(2);
    const { message } = json<ErrorOut>(r).error;
    expect(message).toContain("--rollouts");
    expect(message).not.toContain("episodes");
  });

  it("--resume with --tasks, --policy or --seed is an error (run and search)", async () => {
    for (const cmd of ["run", "search"]) {
      const r = await runMain([
        "--json",
        cmd,
        "--resume",
        "x",
        "--tasks",
        "4x4",
        "--seed",
        "3",
        "--store",
        store,
      ]);
      expect(r.code, r.stdout).toBe(2);
      const { code, message } = json<ErrorOut>(r).error;
      expect(code).toBe("cli.resume_conflict");
      expect(message).toContain("--tasks, --seed");
    }
  });

  it("--tasks-dir with frozenlake and an empty --tasks-dir are user errors; no run is left running", async () => {
    const empty = mkdtempSync(join(dir, "empty-"));
    const fl = await runMain([
      "--json",
      "run",
      "--env",
      "frozenlake",
      "--tasks-dir",
      empty,
      "--store",
      store,
    ]);
    expect(fl.code).toBe(2);
    expect(json<ErrorOut>(fl).error.code).toBe("env.tasks_dir_unsupported");
    const none = await runMain(["--json", "search", "--env", "web", "--tasks-dir", empty, "--store", store]);
    expect(none.code).toBe(2);
    expect(json<ErrorOut>(none).error).toMatchObject({ code: "tasks.none", category: "user" });
    const s = openSqliteStore({ dir: store });
    try {
      expect(s.listRuns().filter((r) => r.status === "running")).toEqual([]);
    } finally {
      s.close();
    }
  });
});
