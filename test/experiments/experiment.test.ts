import { describe, expect, it } from "vitest";
import { parseSklFrozenLakeOptions, runFrozenLakeSklExperiment } from "../../src/experiments/index.ts";
import { KnowledgeOptionsError, renderLineChartSvg, SKL_METHODS } from "../../src/knowledge/index.ts";

/** Checks tags nest and close (a small well-formedness check without an XML dependency). */
function wellFormed(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*?)(\/?)>/g)) {
    const [, close, name, attrs, self] = m;
    if (/[<&](?!amp;|lt;|gt;|quot;|apos;)/.test(attrs ?? "")) return false;
    if (self) continue;
    if (close) {
      if (stack.pop() !== name) return false;
    } else stack.push(name as string);
  }
  return stack.length === 0 && svg.trimStart().startsWith("<svg");
}

describe("SKL FrozenLake experiment", () => {
  it("runs deterministically and reports every method and metric", async () => {
    const options = { trainMaps: 6, testMaps: 4, iterations: 3, seed: 7 } as const;
    const a = await runFrozenLakeSklExperiment(options);
    const b = await runFrozenLakeSklExperiment(options);
    expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
    expect(a.svg).toBe(b.svg);
    const r = a.report;
    expect(r.setup.trainTaskIds).toEqual([
      "random-5-0",
      "random-5-1",
      "random-5-2",
      "random-5-3",
      "random-5-4",
      "random-5-5",
    ]);
    expect(r.setup.testTaskIds).toEqual(["random-5-50", "random-5-51", "random-5-52", "random-5-53"]);
    expect(r.methods.map((m) => m.method)).toEqual([...SKL_METHODS]);
    for (const m of r.methods) {
      expect(m.iterations).toHaveLength(3);
      for (const it of m.iterations) {
        expect(it.train.episodes).toBe(6);
        expect(it.test.episodes).toBe(4);
        for (const v of [
          it.train.successRate,
          it.test.successRate,
          it.train.goodMoveRatio,
          it.test.goodMoveRatio,
        ]) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
        expect(it.successDrop).toBeCloseTo(it.train.successRate - it.test.successRate, 6);
      }
      expect(Object.keys(m.final).sort()).toEqual([
        "successDrop",
        "testGoodMoveRatio",
        "testSuccessRate",
        "trainGoodMoveRatio",
        "trainSuccessRate",
      ]);
    }
    const byMethod = Object.fromEntries(r.methods.map((m) => [m.method, m]));
    expect(byMethod["no-reflection"]?.knowledge.keys).toBe(0);
    expect(byMethod["trajectory-reflection"]?.knowledge.keys).toBeGreaterThan(0);
    expect(byMethod["stateful-bootstrap"]?.knowledge.keys).toBeGreaterThan(
      byMethod["stateful-root"]?.knowledge.keys ?? 0,
    );
    const other = await runFrozenLakeSklExperiment({ ...options, seed: 8, methods: ["stateful-root"] });
    expect(JSON.stringify(other.report.methods[0]?.iterations)).not.toBe(
      JSON.stringify(byMethod["stateful-root"]?.iterations),
    );
    expect(wellFormed(a.svg)).toBe(true);
    expect(a.svg).toContain("stateful-bootstrap (test)");
  });

  it("validates options at the boundary", () => {
    expect(parseSklFrozenLakeOptions({})).toMatchObject({
      slip: "symmetric",
      trainMaps: 50,
      testMaps: 50,
      iterations: 10,
      writer: "statistical",
      n: 3,
      hMc: 15,
      hTd: 1,
    });
    expect(() => parseSklFrozenLakeOptions({ slip: "sideways" })).toThrow(KnowledgeOptionsError);
    expect(() => parseSklFrozenLakeOptions({ iterations: 0 })).toThrow(/iterations/);
    expect(() => parseSklFrozenLakeOptions({ unknown: 1 })).toThrow(KnowledgeOptionsError);
  });

  it("renders a well-formed SVG with escaped labels", () => {
    const svg = renderLineChartSvg({
      title: "a < b & c",
      xLabel: "x",
      yLabel: "y",
      series: [
        {
          name: 's "1"',
          color: "#123456",
          points: [
            [0, 0.2],
            [1, 0.5],
          ],
        },
      ],
    });
    expect(wellFormed(svg)).toBe(true);
    expect(svg).toContain("a &lt; b &amp; c");
    expect(svg).toContain("<polyline");
  });
});
