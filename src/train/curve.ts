import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { renderLineChartSvg } from "../knowledge/svg-chart.ts";
import type { CurvePoint } from "../policies/trainable/index.ts";

/** The learning-curve files of a checkpoint `out`: `<out>.curve.json` and `<out>.curve.svg`. */
export function curvePaths(out: string): { json: string; svg: string } {
  return { json: `${out}.curve.json`, svg: `${out}.curve.svg` };
}

/** The per-iteration checkpoint of `out`: `<out>.iters/iter-0003.json`. */
export function iterationCheckpointPath(out: string, iteration: number): string {
  return `${out}.iters/iter-${String(iteration).padStart(4, "0")}.json`;
}

/** The curve's plotted series: name, colour and the point's field. */
const CURVE_SERIES = [
  ["loss", "#d62728", "loss"],
  ["success rate", "#2ca02c", "successRate"],
  ["mean reward", "#1f77b4", "meanReward"],
] as const;

/**
 * Writes a learning curve as JSON (every point) and SVG (loss; success rate and mean reward where the
 * points have them), beside the checkpoint.
 */
export function writeLearningCurve(
  out: string,
  title: string,
  curve: ReadonlyArray<CurvePoint>,
): { json: string; svg: string } {
  const paths = curvePaths(out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(paths.json, `${JSON.stringify({ title, points: curve }, null, 1)}\n`);
  const series = CURVE_SERIES.flatMap(([name, color, field]) => {
    const points = curve.flatMap((p) => {
      const v = p[field];
      return v === undefined ? [] : [[p.iteration, v] as const];
    });
    return points.length > 0 ? [{ name, color, points }] : [];
  });
  writeFileSync(paths.svg, renderLineChartSvg({ title, xLabel: "iteration", yLabel: "value", series }));
  return paths;
}
