import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-webcli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = join(dir, "store");
const pages = join(import.meta.dirname, "..", "fixtures", "web", "pages");

shareBrowserAcrossFile();

describe("rehearsal CLI on the web environment", () => {
  it("tasks list --suite builtin lists the built-in tasks with splits and tiers", async () => {
    const r = await runMain(["--json", "tasks", "list", "--suite", "builtin"]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{ suite: string; tasks: Array<{ id: string; split: string; tier: string }> }>(r);
    expect(out.suite).toBe("builtin");
    expect(out.tasks.length).toBeGreaterThanOrEqual(24);
    expect(out.tasks.some((t) => t.split === "heldout")).toBe(true);
    expect(new Set(out.tasks.map((t) => t.tier))).toEqual(new Set(["short", "long"]));
  });

  it("run --env web records oracle episodes and search + export sft + eval work end to end", async () => {
    const run = await runMain([
      "--json",
      "run",
      "--env",
      "web",
      "--suite",
      "builtin",
      "--tasks",
      "click-button,login-user",
      "--policy",
      "oracle",
      "--episodes",
      "1",
      "--seed",
      "3",
      "--store",
      store,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(json<{ summary: { successRate: number; episodes: number } }>(run).summary).toMatchObject({
      successRate: 1,
      episodes: 2,
    });

    const search = await runMain([
      "--json",
      "search",
      "--env",
      "web",
      "--tasks",
      "click-checkboxes",
      "--policy",
      "heuristic",
      "--live-envs",
      "2",
      "--seed",
      "1",
      "--store",
      store,
    ]);
    expect(search.code, search.stderr).toBe(0);
    const s = json<{ runId: string; totals: { leaves: number } }>(search);
    expect(s.totals.leaves).toBeGreaterThan(0);

    const out = join(dir, "sft.jsonl");
    const exp = await runMain([
      "--json",
      "export",
      "sft",
      "--run",
      s.runId,
      "--out",
      out,
      "--observation",
      "both",
      "--store",
      store,
    ]);
    expect(exp.code, exp.stderr).toBe(0);
    const report = json<{ records: number; images: number }>(exp);
    expect(report.images).toBeGreaterThanOrEqual(report.records > 0 ? 1 : 0);

    const ev = await runMain([
      "--json",
      "eval",
      "--env",
      "web",
      "--tasks",
      "click-button",
      "--policy",
      "heuristic",
      "--rollouts",
      "2",
      "--k",
      "1,2",
      "--entropy-states",
      "2",
      "--store",
      store,
    ]);
    expect(ev.code, ev.stderr).toBe(0);
    const e = json<{
      pass: Array<{ group: string; passAt: Record<string, number> }>;
      entropy: { states: number };
    }>(ev);
    expect(e.pass.find((p) => p.group === "all")?.passAt["1"]).toBeGreaterThan(0);
    expect(e.entropy.states).toBe(2);
  }, 240_000);

  it("--tasks-dir loads a directory of protocol pages as a suite", async () => {
    const r = await runMain(["--json", "tasks", "list", "--tasks-dir", pages]);
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ tasks: unknown[] }>(r).tasks.length).toBeGreaterThan(0);
  });

  it("an unknown suite is a user error", async () => {
    expect((await runMain(["tasks", "list", "--env", "web", "--suite", "nope"])).code).toBe(2);
  });
});
