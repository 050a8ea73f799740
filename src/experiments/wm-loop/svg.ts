import { renderLineChartSvg } from "../../knowledge/svg-chart.ts";
import type { WmLoopFamilyResult } from "./results.ts";

const COLORS = { "world-model": "#1f77b4", real: "#d62728" } as const;

/** `<call_wm>` calls per trajectory of each training iteration's rollouts, one line per arm. */
export function wmLoopCallsSvg(result: WmLoopFamilyResult): string {
  return renderLineChartSvg({
    title: `wm-loop ${result.name}: WM calls per trajectory over training`,
    xLabel: "GRPO iteration",
    yLabel: "WM calls / trajectory",
    series: result.arms.map((a) => ({
      name: `rollouts in ${a.arm === "real" ? "the real env" : "the world model"}`,
      color: COLORS[a.arm],
      points: a.trainWmCalls.map((c, i) => [i + 1, c] as const),
    })),
  });
}

/** Real-environment pass@1 against seconds of training, one line per arm (both start at the initial policy). */
export function wmLoopCurveSvg(result: WmLoopFamilyResult): string {
  return renderLineChartSvg({
    title: `wm-loop ${result.name}: real-env pass@1 vs training seconds`,
    xLabel: "training seconds",
    yLabel: "real-env pass@1",
    series: result.arms.map((a) => ({
      name: `GRPO in ${a.arm === "real" ? "the real env" : "the world model"} (${a.iterations} it.)`,
      color: COLORS[a.arm],
      points: [[0, result.initial.pass1] as const, ...a.curve.map((c) => [c.seconds, c.real.pass1] as const)],
    })),
  });
}
