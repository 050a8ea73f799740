import type { StateRecord } from "../../core/index.ts";
import { fieldPattern } from "./invariants.ts";
import type { BoundRef, Invariants } from "./schema.ts";

/** An observed numeric range, optionally tied to a per-task constant field (`map.rows` − 1). */
export interface BoundRange {
  min: number;
  max: number;
  minFrom?: BoundRef;
  maxFrom?: BoundRef;
}

/** Observed numeric ranges by field pattern (see `fieldPattern`). */
export type Ranges = ReadonlyMap<string, BoundRange>;

interface TaskStats {
  /** Numeric range of each pattern in this task's states. */
  ranges: Map<string, { min: number; max: number }>;
  /** Each exact path's number in this task, or null once it held two different numbers or a non-number. */
  constants: Map<string, number | null>;
}

/** Collects per-task numeric ranges and per-task constant numbers (feed it every state with its task). */
export class TaskRangeCollector {
  private readonly tasks = new Map<string, TaskStats>();

  add(task: string, state: StateRecord): void {
    let t = this.tasks.get(task);
    if (!t) {
      t = { ranges: new Map(), constants: new Map() };
      this.tasks.set(task, t);
    }
    for (const [path, value] of Object.entries(state)) {
      if (typeof value === "number") {
        const pattern = fieldPattern(path);
        const r = t.ranges.get(pattern);
        if (r) {
          r.min = Math.min(r.min, value);
          r.max = Math.max(r.max, value);
        } else t.ranges.set(pattern, { min: value, max: value });
      }
      const known = t.constants.get(path);
      const next = typeof value === "number" && (known === undefined || known === value) ? value : null;
      t.constants.set(path, next);
    }
  }

  /** Tasks in id order. */
  private entries(): Array<[string, TaskStats]> {
    return [...this.tasks.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /**
   * A constant field `F` and offset `k` with `end(pattern) = F + k` in every task, where `F` differs
   * between tasks (with one value the fixed bound says the same); the smallest |k|, then the path name.
   */
  private relative(pattern: string, end: "min" | "max"): BoundRef | undefined {
    const tasks = this.entries();
    if (tasks.length < 2) return undefined;
    const first = tasks[0]?.[1] as TaskStats;
    let best: BoundRef | undefined;
    for (const [path, v0] of [...first.constants.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (v0 === null || fieldPattern(path) === pattern) continue;
      const r0 = first.ranges.get(pattern);
      if (!r0) continue;
      const offset = r0[end] - v0;
      const values = new Set<number>();
      const holds = tasks.every(([, t]) => {
        const v = t.constants.get(path);
        const r = t.ranges.get(pattern);
        if (v === undefined || v === null || !r) return false;
        values.add(v);
        return r[end] - v === offset;
      });
      if (holds && values.size > 1 && (!best || Math.abs(offset) < Math.abs(best.offset))) {
        best = { path, offset };
      }
    }
    return best;
  }

  /** `global` with each pattern's per-task relative bounds attached where the traces show one. */
  withRelativeBounds(global: ReadonlyMap<string, { min: number; max: number }>): Map<string, BoundRange> {
    const out = new Map<string, BoundRange>();
    for (const [pattern, range] of global) {
      const minFrom = this.relative(pattern, "min");
      const maxFrom = this.relative(pattern, "max");
      out.set(pattern, { ...range, ...(minFrom ? { minFrom } : {}), ...(maxFrom ? { maxFrom } : {}) });
    }
    return out;
  }

  /** Per-task ranges of the patterns whose range differs between tasks (task, then path order). */
  taskRanges(
    global: ReadonlyMap<string, { min: number; max: number }>,
  ): NonNullable<Invariants["taskRanges"]> {
    const tasks = this.entries();
    const out: NonNullable<Invariants["taskRanges"]> = [];
    if (tasks.length < 2) return out;
    const differs = new Set<string>();
    for (const [pattern, g] of global) {
      if (
        tasks.some(([, t]) => t.ranges.get(pattern)?.min !== g.min || t.ranges.get(pattern)?.max !== g.max)
      ) {
        differs.add(pattern);
      }
    }
    for (const [task, t] of tasks) {
      for (const pattern of [...differs].sort()) {
        const r = t.ranges.get(pattern);
        if (r) out.push({ task, path: pattern, min: r.min, max: r.max });
      }
    }
    return out;
  }
}
