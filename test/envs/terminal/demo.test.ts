import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { json, runMain } from "../../cli/run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-terminal-demo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface DemoResult {
  search: Array<{ taskId: string; tier: string }>;
  comparison: Array<{ tier: string; tasks: number; basePass1: number; basePass8: number }>;
}

describe("rehearsal demo terminal", () => {
  it("searches terminal tasks with the template policy and compares discovery with the base per tier", async () => {
    const r = await runMain([
      "--json",
      "demo",
      "terminal",
      "--tasks",
      "find-and-copy,project-cleanup",
      "--rollouts",
      "2",
      "--max-nodes",
      "6",
      "--store",
      join(dir, "store"),
      "--out",
      join(dir, "sft.jsonl"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<DemoResult>(r);
    expect(out.search.map((s) => s.taskId).sort()).toEqual(["find-and-copy", "project-cleanup"]);
    expect(out.comparison.map((row) => row.tier).sort()).toEqual(["all", "long", "short"]);
    for (const row of out.comparison) {
      expect(row.basePass1).toBeGreaterThanOrEqual(0);
      expect(row.basePass8).toBeLessThanOrEqual(1);
    }
  }, 180_000);

  it("rejects an unknown demo with the list of demos", async () => {
    const r = await runMain(["demo", "nope", "--store", join(dir, "s2")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("terminal");
  });
});
