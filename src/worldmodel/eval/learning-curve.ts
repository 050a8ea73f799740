import { createRandom, UserError } from "../../core/index.ts";
import { renderLineChartSvg } from "../../knowledge/svg-chart.ts";
import type { SimulatorSystem } from "../runtime/contract.ts";
import type { TraceStep } from "../trace.ts";
import { type BuildExtras, buildWorldbook } from "../worldbook/build.ts";
import type { WorldbookOptionsInput } from "../worldbook/schema.ts";
import { evaluateFidelity, type FidelityOptions } from "./fidelity.ts";
import type { FidelityMetric, LearningCurve } from "./report.ts";

export interface LearningCurveOptions extends Omit<FidelityOptions, "systems"> {
  /** Seeds the order construction episodes are taken in. */
  seed: string | number;
  /** Numbers of construction episodes (default 1, 2, 4, … and all); values above the total are dropped. */
  sizes?: ReadonlyArray<number>;
  /** Systems per point (default full and copy). */
  systems?: ReadonlyArray<SimulatorSystem>;
  build?: WorldbookOptionsInput;
  buildExtras?: BuildExtras;
}

/** 1, 2, 4, … below `total`, then `total`. */
export function doublingSizes(total: number): number[] {
  const sizes: number[] = [];
  for (let n = 1; n < total; n *= 2) sizes.push(n);
  if (total > 0) sizes.push(total);
  return sizes;
}

/**
 * Fidelity against the amount of construction data: the construction episodes in a seeded order, a
 * worldbook rebuilt from the first n of them for each size n, scored on the same held-out steps.
 */
export async function learningCurve(
  buildSteps: ReadonlyArray<TraceStep>,
  heldout: ReadonlyArray<TraceStep>,
  options: LearningCurveOptions,
): Promise<LearningCurve> {
  const episodes = [...new Set(buildSteps.map((s) => s.episodeId))].sort();
  if (episodes.length === 0) {
    throw new UserError(
      "worldmodel_eval.no_build_steps",
      "learningCurve(): no construction steps were given. Fix: pass the build split's trace steps.",
    );
  }
  const order = createRandom("learning-curve", options.seed).shuffle(episodes);
  const sizes = [...new Set(options.sizes ?? doublingSizes(episodes.length))]
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= episodes.length)
    .sort((a, b) => a - b);
  const { seed: _seed, sizes: _sizes, systems, build, buildExtras, ...fidelity } = options;
  const points: LearningCurve["points"] = [];
  for (const n of sizes) {
    const chosen = new Set(order.slice(0, n));
    const steps = buildSteps.filter((s) => chosen.has(s.episodeId));
    const book = buildWorldbook(steps, build, buildExtras);
    const report = await evaluateFidelity(book, heldout, {
      ...fidelity,
      systems: systems ?? ["full", "copy"],
    });
    points.push({ episodes: n, transitions: steps.length, systems: report.systems });
  }
  return { seed: options.seed, order, points };
}

const COLORS = ["#1f77b4", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

/** The learning curve drawn: one line per system, `metric` against the number of construction episodes. */
export function learningCurveSvg(
  curve: LearningCurve,
  metric: FidelityMetric = "changedFieldAccuracy",
): string {
  const systems = [...new Set(curve.points.flatMap((p) => p.systems.map((s) => s.system)))];
  return renderLineChartSvg({
    title: `World-model fidelity vs construction episodes (${metric})`,
    xLabel: "construction episodes",
    yLabel: metric,
    series: systems.map((system, i) => ({
      name: system,
      color: COLORS[i % COLORS.length] as string,
      dashed: system === "copy",
      points: curve.points.flatMap((p) => {
        const value = p.systems.find((s) => s.system === system)?.[metric];
        return value === undefined || value === null ? [] : [[p.episodes, value] as const];
      }),
    })),
  });
}
