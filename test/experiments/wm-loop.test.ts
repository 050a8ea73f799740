import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWmLoop } from "../../src/experiments/wm-loop/experiment.ts";
import { WmLoopOptionsSchema, wmLoopSettings } from "../../src/experiments/wm-loop/options.ts";
import { WmLoopResultsSchema } from "../../src/experiments/wm-loop/results.ts";
import { runMain } from "../cli/run-cli.ts";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "wm-loop-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The matched training budget of the experiment's run: seconds per arm and family. */
const BUDGET_SECONDS = 1;

describe("rehearsal experiment wm-loop", () => {
  it("trains in the world model and in the real env for matched seconds and scores both in the real env", async () => {
    const out = join(tempDir(), "exp");
    // One training second per arm and family: the arms still train for matched seconds (the claim),
    // in less time than the small scale's own budgets.
    const r = await runMain([
      "experiment",
      "wm-loop",
      "--scale",
      "small",
      "--budget",
      String(BUDGET_SECONDS),
      "--seed",
      "3",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("world model");
    expect(r.stdout).toContain("real env");
    expect(r.stdout).toContain("frozenlake-slippery-4x4");
    expect(r.stdout).toContain("terminal-short");
    const results = WmLoopResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    expect(results.families.map((f) => f.family)).toEqual(["frozenlake", "terminal"]);
    const settings = wmLoopSettings(
      WmLoopOptionsSchema.parse({ scale: "small", budgetSeconds: BUDGET_SECONDS }),
    );
    for (const [i, f] of results.families.entries()) {
      const setting = settings[i];
      if (!setting || !("seconds" in setting.budget)) throw new Error("small settings use a time budget");
      expect(existsSync(join(f.worldbook.dir, "manifest.json"))).toBe(true);
      const svg = readFileSync(join(out, `curve-${f.name}.svg`), "utf8");
      expect(svg).toMatch(/^<svg/);
      expect(svg.match(/<polyline/g)?.length).toBe(2);
      expect(readFileSync(join(out, `wm-calls-${f.name}.svg`), "utf8")).toMatch(/^<svg/);
      // The arms play the WM-consulting policy, asking the worldbook, within its caps.
      const wm = setting.wm;
      if (!wm) throw new Error("the WM gate is on by default");
      expect(f.wm).toEqual({ ...wm, worldModel: "worldbook" });
      expect(f.initial.wmCallsPerTrajectory).toBeGreaterThan(0);
      for (const arm of f.arms) {
        // Matched wall-clock: each arm trained at least the budget, stopping after the first iteration past it.
        expect(arm.seconds).toBeGreaterThanOrEqual(setting.budget.seconds);
        expect(arm.iterations).toBe(arm.trainSuccess.length);
        // WM calls per trajectory over training: one figure per iteration, never above the episode cap.
        expect(arm.trainWmCalls).toHaveLength(arm.iterations);
        expect(arm.trainWmCalls.every((c) => c >= 0 && c <= wm.episodeCap)).toBe(true);
        for (const c of arm.curve) expect(c.trainWmCalls).toBe(arm.trainWmCalls[c.iteration - 1]);
        expect(arm.iterations).toBeGreaterThan(0);
        // pass@1 comes from real episodes: every task played evalEpisodes times, successes counted per task.
        for (const e of [arm.final, ...arm.curve.map((c) => c.real)]) {
          expect(e.episodes).toBe(setting.evalEpisodes * f.tasks.length);
          const perTask = Object.values(e.perTask);
          expect(perTask.reduce((a, t) => a + t.successes, 0)).toBe(e.successes);
          expect(e.pass1).toBeCloseTo(e.successes / e.episodes, 12);
          expect(e.wmCallsPerTrajectory).toBeLessThanOrEqual(wm.episodeCap);
        }
        const seconds = arm.curve.map((c) => c.seconds);
        expect([...seconds].sort((a, b) => a - b)).toEqual(seconds);
        expect(arm.curve.at(-1)?.iteration).toBe(arm.iterations);
      }
    }
    expect(results.wmCalls).toMatch(/worldbook/);
    expect(r.stdout).toContain("WM calls/traj");
  }, 240_000);

  it("with --no-wm-gate plays the plain policy: no WM calls anywhere", async () => {
    const r = await runWmLoop(
      { families: ["frozenlake"], scale: "small", seed: "2", iterations: 2, evalEpisodes: 5, wmGate: false },
      { out: tempDir(), now: () => 0 },
    );
    const f = r.families[0];
    expect(f?.wm).toBeUndefined();
    for (const a of f?.arms ?? []) {
      expect(a.trainWmCalls).toEqual([0, 0]);
      expect(a.final.wmCallsPerTrajectory).toBe(0);
    }
    expect(r.wmCalls).toMatch(/^none/);
  }, 240_000);

  it("is deterministic per seed with fixed iterations, and the seed matters", async () => {
    const run = async (seed: string) => {
      const r = await runWmLoop(
        { families: ["frozenlake"], scale: "small", seed, iterations: 4, evalEpisodes: 30 },
        { out: tempDir(), now: () => 0 },
      );
      const f = r.families[0];
      if (!f) throw new Error("no family result");
      return f.arms.map((a) => ({
        it: a.iterations,
        train: a.trainSuccess,
        calls: a.trainWmCalls,
        curve: a.curve.map((c) => c.real),
      }));
    };
    const a = await run("7");
    expect(await run("7")).toEqual(a);
    expect(a.map((x) => x.it)).toEqual([4, 4]);
    const b = await run("8");
    expect(b).not.toEqual(a);
  }, 240_000);

  it("rejects an unknown family as a user error", async () => {
    const r = await runMain(["experiment", "wm-loop", "--families", "chess", "--out", tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("wm-loop");
  });
});
