import { passAtK } from "./pass-at-k.ts";
import type { TaskRollouts } from "./pass-report.ts";

export interface SearchTaskStats {
  taskId: string;
  tier: string;
  successes: number;
  envSteps: number;
}

export interface DiscoveryRow {
  tier: string;
  tasks: number;
  /** Tasks where search found ≥ 1 verified success. */
  searchDiscovery: number;
  /** Mean environment steps search spent per task. */
  searchStepsPerTask: number;
  /** Base policy: chance of ≥ 1 success within the same environment steps (pass@m, m = steps / mean length). */
  baseAtMatchedSteps: number;
  basePass1: number;
  basePass8: number;
  /** Tasks where m exceeded the rollouts measured, so the value is extrapolated as 1 − (1 − c/n)^m. */
  extrapolated: number;
}

/**
 * Search discovery vs the base policy at matched environment steps, per tier: for each task, m = the
 * search's environment steps / the base policy's mean episode length rollouts; the base "discovers" the
 * task with probability pass@m (unbiased while m ≤ n, extrapolated beyond).
 */
export function discoveryAtMatchedSteps(
  search: ReadonlyArray<SearchTaskStats>,
  base: ReadonlyArray<TaskRollouts>,
): DiscoveryRow[] {
  const byTask = new Map(base.map((b) => [b.taskId, b] as const));
  const tiers = [...new Set(search.map((s) => s.tier))].sort();
  const rows: DiscoveryRow[] = [];
  for (const tier of [...tiers, "all"]) {
    const list = search
      .filter((s) => tier === "all" || s.tier === tier)
      .filter((s) => (byTask.get(s.taskId)?.n ?? 0) > 0);
    if (list.length === 0) continue;
    let matched = 0;
    let pass1 = 0;
    let pass8 = 0;
    let extrapolated = 0;
    for (const s of list) {
      const b = byTask.get(s.taskId) as TaskRollouts;
      const m = Math.max(1, Math.floor(s.envSteps / Math.max(1, b.meanSteps)));
      if (m <= b.n) matched += passAtK(b.n, b.c, m);
      else {
        extrapolated += 1;
        matched += 1 - (1 - b.c / b.n) ** m;
      }
      pass1 += passAtK(b.n, b.c, 1);
      pass8 += passAtK(b.n, b.c, Math.min(8, b.n));
    }
    rows.push({
      tier,
      tasks: list.length,
      searchDiscovery: list.filter((s) => s.successes > 0).length / list.length,
      searchStepsPerTask: list.reduce((a, s) => a + s.envSteps, 0) / list.length,
      baseAtMatchedSteps: matched / list.length,
      basePass1: pass1 / list.length,
      basePass8: pass8 / list.length,
      extrapolated,
    });
  }
  return rows;
}
