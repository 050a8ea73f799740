import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { meanOverTasks, passAtK } from "../../src/eval/index.ts";
import { EnvsLoopResultsSchema, expertIteration, passGroups } from "../../src/experiments/envs-loop/index.ts";
import { runMain } from "../cli/run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "envs-loop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const records = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(
      (l) =>
        JSON.parse(l) as { weight: number; metadata: { taskId: string; nodeId: string; stepIndex: number } },
    );

describe("experiment envs-loop", () => {
  it("runs the loop at --scale small: table, schema-valid results.json, SVG, real episodes, nested fractions", async () => {
    const out = join(dir, "small");
    const r = await runMain(["experiment", "envs-loop", "--scale", "small", "--seed", "3", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    for (const name of ["base", "balanced@10%", "uniform@30%", "balanced@100%", "train/short p@1 | p@8"])
      expect(r.stdout).toContain(name);
    expect(r.stdout).toMatch(/round 2 \((balanced|uniform)@\d+%\): long tasks solved \d\/1/);
    const results = EnvsLoopResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    const svg = readFileSync(join(out, "pass-by-fraction.svg"), "utf8");
    expect(svg.trimStart().startsWith("<svg")).toBe(true);
    expect(svg).toContain("pass@1 by data fraction");

    // Every policy's pass@k comes from its real evaluation episodes: n rollouts per task, recomputed.
    expect(results.policies.map((p) => p.name)).toEqual([
      "base",
      ...["10%", "30%", "100%"].flatMap((f) => [`balanced@${f}`, `uniform@${f}`]),
    ]);
    for (const p of results.policies) {
      expect(p.perTask.map((t) => t.taskId)).toEqual(results.tasks.map((t) => t.id));
      for (const t of p.perTask) expect(t.n + t.infraFailed).toBe(8);
      const train = p.perTask.filter((t) => t.split === "train");
      const g = p.eval.find((x) => x.split === "train" && x.tier === "all");
      expect(g?.passAt["1"]).toBeCloseTo(meanOverTasks(train.map((t) => t.c / t.n)), 12);
      expect(g?.passAt["8"]).toBeCloseTo(meanOverTasks(train.map((t) => passAtK(t.n, t.c, 8))), 12);
    }
    // Every SFT target is among the candidates of its exported context (the terminal candidates read
    // the episode's earlier outputs, which the exported context carries).
    for (const p of results.policies.filter((x) => x.weights)) expect(p.targetsOutsideCandidates).toBe(0);
    // Only train tasks are searched; held-out ones are only evaluated.
    expect(results.rounds[0]?.tasks.every((t) => t.split === "train")).toBe(true);

    // Fractions nest: each smaller export's steps are all in the larger one.
    const key = (x: { metadata: { nodeId: string; stepIndex: number } }) =>
      `${x.metadata.nodeId.split(":").at(-1)}#${x.metadata.stepIndex}`;
    const files = results.data.map((d) => records(d.file));
    for (let i = 1; i < files.length; i++) {
      const bigger = new Set((files[i] ?? []).map(key));
      expect((files[i - 1] ?? []).every((x) => bigger.has(key(x)))).toBe(true);
      expect((files[i - 1] ?? []).length).toBeLessThanOrEqual((files[i] ?? []).length);
    }
    // Balanced weights: a task every leaf of which succeeded carries no mass ((1 − SR)^β = 0).
    const round1 = results.rounds[0]?.tasks ?? [];
    const full = files.at(-1) ?? [];
    for (const t of round1.filter((x) => x.successes > 0)) {
      const mine = full.filter((x) => x.metadata.taskId === t.taskId);
      expect(mine.length).toBe(t.uniqueSteps);
      if (t.successes === t.leaves) expect(mine.every((x) => x.weight === 0)).toBe(true);
      else expect(mine.every((x) => x.weight > 0)).toBe(true);
    }
    // Round 2 plays the trained policy with the best train pass@1.
    const trainP1 = (name: string) =>
      results.policies.find((p) => p.name === name)?.eval.find((g) => g.split === "train" && g.tier === "all")
        ?.passAt["1"] ?? -1;
    const best = Math.max(...results.policies.filter((p) => p.weights).map((p) => trainP1(p.name)));
    expect(trainP1(results.best)).toBe(best);
    expect(results.rounds[1]?.policy).toBe(results.best);
  }, 600_000);

  it("rejects an unknown environment as a user error", async () => {
    const r = await runMain(["experiment", "envs-loop", "--env", "chess", "--out", join(dir, "bad")]);
    expect(r.code).toBe(2);
  });

  it("counts long tasks that only round 2 solved", () => {
    const t = (taskId: string, tier: string, successes: number) => ({
      taskId,
      split: "train",
      tier,
      leaves: 4,
      successes,
      uniqueSteps: successes,
      envSteps: 10,
    });
    const e = expertIteration(
      [t("a", "long", 0), t("b", "long", 2), t("c", "short", 0), t("d", "long", 0)],
      [t("a", "long", 1), t("b", "long", 0), t("c", "short", 3), t("d", "long", 0)],
    );
    expect(e).toEqual({
      longTasks: 3,
      round1LongSolved: 1,
      round2LongSolved: 1,
      round1LongSuccesses: 2,
      round2LongSuccesses: 1,
      newlySolved: ["a"],
    });
  });

  it("groups pass@k by split × tier, skipping tasks without complete rollouts", () => {
    const row = (taskId: string, split: "train" | "heldout", tier: string, n: number, c: number) => ({
      taskId,
      split,
      tier,
      n,
      c,
      infraFailed: 0,
      meanSteps: 1,
    });
    const groups = passGroups(
      [row("a", "train", "short", 8, 8), row("b", "train", "long", 8, 0), row("c", "heldout", "short", 0, 0)],
      [1, 8],
    );
    expect(groups.map((g) => `${g.split}/${g.tier}`)).toEqual(["train/long", "train/short", "train/all"]);
    expect(groups.find((g) => g.tier === "all")?.passAt["1"]).toBe(0.5);
  });
});
