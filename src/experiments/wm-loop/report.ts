import type { WmLoopArmResult, WmLoopResults } from "./results.ts";

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The mean of the first (`"first"`) or last quarter of a per-iteration series. */
function quarterMean(xs: ReadonlyArray<number>, which: "first" | "last"): number {
  const n = Math.max(1, Math.ceil(xs.length / 4));
  const part = which === "first" ? xs.slice(0, n) : xs.slice(-n);
  return part.length === 0 ? 0 : part.reduce((a, b) => a + b, 0) / part.length;
}

/** The mean training-rollout success of an arm's last quarter of iterations (in its own environment). */
export function lateTrainSuccess(arm: WmLoopArmResult): number {
  return quarterMean(arm.trainSuccess, "last");
}

/** WM calls per training trajectory: the arm's first quarter of iterations → its last quarter. */
export function trainWmCallsTrend(arm: WmLoopArmResult): string {
  return `${quarterMean(arm.trainWmCalls, "first").toFixed(2)} → ${quarterMean(arm.trainWmCalls, "last").toFixed(2)}`;
}

/** The table the command prints: per family and arm, iterations, seconds, own-env success and real-env pass@1. */
export function wmLoopTable(results: WmLoopResults): { head: string[]; rows: string[][] } {
  const head = [
    "family",
    "policy",
    "trained in",
    "iterations",
    "train s",
    "train-env success (last 1/4)",
    "train WM calls/traj (first 1/4 → last 1/4)",
    "real pass@1",
    "real WM calls/traj",
    "real episodes",
  ];
  const rows: string[][] = [];
  for (const f of results.families) {
    rows.push([
      f.name,
      f.kind,
      "(initial, uniform)",
      "0",
      "0",
      "-",
      "-",
      pct(f.initial.pass1),
      f.initial.wmCallsPerTrajectory.toFixed(2),
      String(f.initial.episodes),
    ]);
    for (const a of f.arms)
      rows.push([
        f.name,
        f.kind,
        a.arm === "real" ? "real env" : "world model",
        String(a.iterations),
        a.seconds.toFixed(1),
        pct(lateTrainSuccess(a)),
        trainWmCallsTrend(a),
        pct(a.final.pass1),
        a.final.wmCallsPerTrajectory.toFixed(2),
        String(a.final.episodes),
      ]);
  }
  return { head, rows };
}
