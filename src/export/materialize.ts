import { createRandom } from "../core/index.ts";
import type { StepExample } from "./examples.ts";

export interface MaterializedTask {
  taskId: string;
  examples: number;
  /** The task's weight mass: Σ weights of its examples. */
  mass: number;
  /** Records written for the task (within ±1 of the mass, by construction). */
  count: number;
}

/**
 * Turns weights into repetitions for trainers without per-example weights: each task gets
 * round-to-mass records by the largest-remainder method (so every task is within ±1 record of its
 * mass and the total equals the rounded total mass); within a task, every example gets ⌊count/T⌋
 * copies and a seeded choice of examples one more. Returns examples in a stable order.
 */
export function materializeWeights(
  examples: ReadonlyArray<StepExample>,
  seed: string,
): { examples: StepExample[]; tasks: MaterializedTask[] } {
  const byTask = new Map<string, StepExample[]>();
  for (const e of examples) {
    const list = byTask.get(e.taskId);
    if (list) list.push(e);
    else byTask.set(e.taskId, [e]);
  }
  const tasks = [...byTask.entries()].map(([taskId, list]) => ({
    taskId,
    list,
    mass: list.reduce((a, e) => a + e.weight, 0),
  }));
  const total = Math.round(tasks.reduce((a, t) => a + t.mass, 0));
  const counts = tasks.map((t) => Math.floor(t.mass));
  let left = total - counts.reduce((a, c) => a + c, 0);
  const order = tasks
    .map((t, i) => ({ i, frac: t.mass - Math.floor(t.mass), id: t.taskId }))
    .sort((a, b) => b.frac - a.frac || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const o of order) {
    if (left <= 0) break;
    counts[o.i] = (counts[o.i] ?? 0) + 1;
    left -= 1;
  }
  const out: StepExample[] = [];
  const summary: MaterializedTask[] = [];
  tasks.forEach((t, i) => {
    const count = counts[i] ?? 0;
    const base = Math.floor(count / t.list.length);
    const extra = new Set(
      createRandom("materialize", seed, t.taskId)
        .shuffle(t.list.map((_, j) => j))
        .slice(0, count - base * t.list.length),
    );
    t.list.forEach((e, j) => {
      const copies = base + (extra.has(j) ? 1 : 0);
      for (let c = 0; c < copies; c++) out.push(e);
    });
    summary.push({ taskId: t.taskId, examples: t.list.length, mass: t.mass, count });
  });
  return { examples: out, tasks: summary };
}
