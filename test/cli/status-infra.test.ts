import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/store/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, runMain, withStore } from "./run-cli.ts";

/**
 * Run status from what the episodes really did (real Chromium on local pages, real SQLite, `main()`
 * in-process): a run whose every episode failed in the environment is `failed` with exit 3 and the
 * typed error on stderr, never `complete`; a mixed run is `complete` and reports the failures by code;
 * a `--tasks-dir` run records the directory as its suite; `--policy oracle` on a task without an
 * oracle is a user error before any run is recorded.
 */
const dir = mkdtempSync(join(tmpdir(), "rehearsal-status-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
shareBrowserAcrossFile();

const pages = join(dir, "pages");
const store = (name: string) => join(dir, `store-${name}`);

/** A valid MiniWoB-protocol page (no oracle): one button ends the episode with reward 1. */
const GOOD = `<!DOCTYPE html>
<html><head><title>Good</title>
<script src="../core/core.js"></script>
<script>
var genProblem = function () {
  document.getElementById("query").textContent = "Click the button.";
  var b = document.createElement("button");
  b.textContent = "Go";
  b.onclick = function () { core.endEpisode(1.0, true); };
  document.getElementById("area").appendChild(b);
};
window.onload = function () { core.startEpisode(); };
</script></head>
<body><div id="wrap"><div id="query"></div><div id="area"></div></div></body></html>
`;
/** The same page with a script that throws while it loads: not a valid task. */
const BROKEN = GOOD.replace(
  "</script></head>",
  '</script><script>throw new Error("broken on purpose");</script></head>',
);
mkdirSync(pages);
writeFileSync(join(pages, "good.html"), GOOD);
writeFileSync(join(pages, "broken.html"), BROKEN);
for (const id of ["good", "broken"])
  writeFileSync(join(pages, `${id}.json`), JSON.stringify({ maxSteps: 3, split: "train" }));

const web = (cmd: string, tasks: string, storeDir: string, ...more: string[]) => [
  cmd,
  "--env",
  "web",
  "--tasks-dir",
  pages,
  "--tasks",
  tasks,
  "--store",
  storeDir,
  ...more,
];

const runsOf = (storeDir: string): RunRecord[] => withStore(storeDir, (s) => s.listRuns());

describe("a run where every episode infra-failed is failed (exit 3), a mixed one reports the failures", () => {
  it("run: all episodes infra-failed → failed, exit 3, typed error on stderr, summary kept", async () => {
    const s = store("run-all");
    const r = await runMain(web("run", "broken", s, "--policy", "random", "-n", "2"));
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/error \[env\.task_page_invalid\]: run run_\S+: all 2 episodes failed/);
    const [run] = runsOf(s);
    expect(run?.status).toBe("failed");
    expect(run?.summary).toMatchObject({
      episodes: 2,
      complete: 0,
      infraFailed: 2,
      infraFailures: { count: 2, codes: { "env.task_page_invalid": 2 } },
      error: { code: "env.task_page_invalid", category: "environment" },
    });
  }, 180_000);

  it("run: a mixed run stays complete; its table and --json name the failures by code", async () => {
    const s = store("run-mixed");
    const human = await runMain(web("run", "good,broken", s, "--policy", "random", "-n", "1"));
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /infra failures: 1 of 2 episodes failed in the environment \(env\.task_page_invalid ×1\)/,
    );
    const r = await runMain(["--json", ...web("run", "good,broken", s, "--policy", "random", "-n", "1")]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{ status: string; summary: Record<string, unknown> }>(r);
    expect(out.status).toBe("complete");
    expect(out.summary).toMatchObject({
      episodes: 2,
      complete: 1,
      infraFailed: 1,
      infraFailures: { count: 1, codes: { "env.task_page_invalid": 1 } },
    });
  }, 180_000);

  it("eval: every rollout infra-failed → failed, exit 3; the --json error names the code", async () => {
    const s = store("eval-all");
    const r = await runMain([
      "--json",
      ...web(
        "eval",
        "broken",
        s,
        "--policy",
        "random",
        "--rollouts",
        "2",
        "--k",
        "1",
        "--entropy-states",
        "0",
      ),
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(json<{ error: { code: string; category: string } }>(r).error).toMatchObject({
      code: "env.task_page_invalid",
      category: "environment",
    });
    const [run] = runsOf(s);
    expect(run).toMatchObject({ kind: "eval", status: "failed" });
    expect(run?.summary).toMatchObject({ infraFailures: { count: 2 } });
  }, 180_000);

  it("search: every branch infra-failed → failed, exit 3", async () => {
    const s = store("search-all");
    const r = await runMain(web("search", "broken", s, "--policy", "random"));
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /error \[env\.task_page_invalid\]: run search_\S+: all \d+ search branches failed/,
    );
    expect(runsOf(s)[0]).toMatchObject({ kind: "search", status: "failed" });
  }, 180_000);
});

describe("the suite of a --tasks-dir run is the directory", () => {
  it("runs list and runs show say dir:<absolute path>, and so does the run's config", async () => {
    const s = store("suite");
    const r = await runMain(["--json", ...web("run", "good", s, "--policy", "random", "-n", "1")]);
    expect(r.code, r.stderr).toBe(0);
    const [run] = runsOf(s);
    expect(run?.config).toMatchObject({ suite: `dir:${pages}`, tasksDir: pages });
    const list = await runMain(["runs", "list", "--store", s]);
    expect(list.stdout).toContain(`dir:${pages}`);
    const show = await runMain(["runs", "show", run?.id as string, "--store", s]);
    expect(show.stdout).toContain(`"suite":"dir:${pages}"`);
  }, 180_000);
});

describe("--policy oracle on a task without an oracle", () => {
  it.each(["run", "search", "eval"])(
    "%s: policy.no_oracle (exit 2) naming the task and the fix; no run is recorded",
    async (cmd) => {
      const s = store(`oracle-${cmd}`);
      const r = await runMain(["--json", ...web(cmd, "good", s, "--policy", "oracle")]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const { error } = json<{ error: { code: string; category: string; message: string } }>(r);
      expect(error).toMatchObject({ code: "policy.no_oracle", category: "user" });
      expect(error.message).toMatch(/task good .*has none; choose another policy/);
      expect(runsOf(s)).toEqual([]);
    },
    180_000,
  );
});
