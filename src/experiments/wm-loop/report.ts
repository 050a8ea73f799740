import type { WmLoopArmResult, WmLoopResults } from "./results.ts";

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The mean training-rollout success of an arm's last quarter of iterations (in its own environment). */
export function lateTrainSuccess(arm: WmLoopArmResult): number {
  const xs = arm.trainSuccess.slice(-Math.max(1, Math.ceil(arm.trainSuccess.length / 4)));
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
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
    "real pass@1",
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
      pct(f.initial.pass1),
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
        pct(a.final.pass1),
        String(a.final.episodes),
      ]);
  }
  return { head, rows };
}
