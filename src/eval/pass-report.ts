import type { Split } from "../core/index.ts";
import { meanOverTasks, passAtK, passHatK } from "./pass-at-k.ts";

export interface TaskRollouts {
  taskId: string;
  split: Split;
  tier: string;
  /** Complete rollouts (infra failures excluded, never scored 0). */
  n: number;
  /** Successful rollouts. */
  c: number;
  infraFailed: number;
  meanSteps: number;
}

export interface PassRow {
  group: string;
  tasks: number;
  /** pass@k (unbiased) averaged over tasks, per k. */
  passAt: Record<string, number>;
  /** pass^k averaged over tasks, per k. */
  passHat: Record<string, number>;
}

/** pass@k and pass^k for train, held-out and all tasks (and per tier). */
export function passReport(rows: ReadonlyArray<TaskRollouts>, ks: ReadonlyArray<number>): PassRow[] {
  const groups: Array<[string, TaskRollouts[]]> = [
    ["train", rows.filter((r) => r.split === "train")],
    ["heldout", rows.filter((r) => r.split === "heldout")],
    ["all", [...rows]],
  ];
  const tiers = [...new Set(rows.map((r) => r.tier))].sort();
  if (tiers.length > 1) for (const t of tiers) groups.push([`tier:${t}`, rows.filter((r) => r.tier === t)]);
  return groups
    .filter(([, list]) => list.length > 0)
    .map(([group, list]) => {
      const usable = list.filter((r) => r.n > 0);
      const passAt: Record<string, number> = {};
      const passHat: Record<string, number> = {};
      for (const k of ks) {
        passAt[k] = meanOverTasks(usable.map((r) => passAtK(r.n, r.c, k)));
        passHat[k] = meanOverTasks(usable.map((r) => passHatK(r.n, r.c, k)));
      }
      return { group, tasks: usable.length, passAt, passHat };
    });
}
