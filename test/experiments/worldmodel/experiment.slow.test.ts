import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWorldModelExperiment } from "../../../src/experiments/worldmodel/experiment.ts";
import { readTraceFile, readWorldbook } from "../../../src/worldmodel/index.ts";

const out = mkdtempSync(join(tmpdir(), "wm-experiment-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("runWorldModelExperiment (small: FrozenLake both slip settings + two short web tasks)", () => {
  it("records, builds, evaluates every setting and writes one report", async () => {
    const progress: string[] = [];
    const report = await runWorldModelExperiment({
      families: ["frozenlake", "web"],
      scale: "small",
      seed: "t",
      out,
      onProgress: (m) => progress.push(m),
    });
    expect(report.settings.map((s) => s.name)).toEqual(["frozenlake-symmetric", "frozenlake-skewed", "web"]);
    expect(progress).toHaveLength(6);
    for (const s of report.settings) {
      expect(s.eval.fidelity.systems.map((x) => x.system)).toEqual([
        "copy",
        "retrieval",
        "rules",
        "gates",
        "full",
      ]);
      expect(s.eval.fidelity.transitions).toBe(s.traces.test);
      expect(s.traces.build + s.traces.validation + s.traces.test).toBe(s.traces.transitions);
      expect(s.eval.ablations?.variants.map((v) => v.variant)).toEqual([
        "evidence-only",
        "abstractions-only",
        "both",
      ]);
      expect(s.eval.multiTurn?.map((m) => m.system)).toEqual(["copy", "rules", "full"]);
      expect(s.eval.learningCurve?.points.at(-1)?.transitions).toBe(s.traces.build);
      expect(readFileSync(join(out, `learning-curve-${s.name}.svg`), "utf8")).toMatch(/^<svg/);
      // The worldbook and its held-out traces are written as `worldbook build` writes them.
      const book = readWorldbook(s.worldbook);
      expect(book.manifest.families).toEqual([s.family]);
      expect(readTraceFile(join(s.worldbook, "heldout", "test.jsonl"))).toHaveLength(s.traces.test);
    }
    const [sym, skew, web] = report.settings;
    expect(sym?.slip?.truth.left).toBeCloseTo(1 / 3, 9);
    // Traces of (0, 2/3) never slip left, so the recovered left probability is exactly 0.
    expect(skew?.slip?.pooled.left).toBe(0);
    expect(skew?.slip?.maxError).toBeLessThan(0.1);
    expect(web?.slip).toBeUndefined();
    expect(web?.w2r.tasks.map((t) => t.taskId).sort()).toEqual(["click-button", "toggle-switch"]);
    expect(sym?.w2r.overall.episodes).toBeGreaterThan(0);
    // TV's noise floor is known for FrozenLake (the slip model), not for web.
    expect(sym?.eval.fidelity.tv.noiseFloor).not.toBeNull();
    expect(web?.eval.fidelity.tv.noiseFloor).toBeNull();

    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8"))).toEqual(
      JSON.parse(JSON.stringify(report)),
    );
    const md = readFileSync(join(out, "report.md"), "utf8");
    for (const label of ["frozenlake (1/3, 1/3)", "frozenlake (0, 2/3)", "web (short)"])
      for (const system of ["copy", "retrieval", "rules", "gates", "full"])
        expect(md).toContain(`| ${label} | ${system} |`);
    expect(md).toContain("## FrozenLake slip probabilities: recovered vs truth");
    expect(md).toContain("| web (short) | click-button |");
    expect(existsSync(join(out, "web", "w2r-episodes.json"))).toBe(true);
  }, 600_000);
});
