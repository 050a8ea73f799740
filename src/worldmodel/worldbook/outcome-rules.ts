import { canonicalJson, type StateRecord, type StateScalar, type StateValue } from "../../core/index.ts";
import type { OutcomeRule } from "./schema.ts";

export interface OutcomeSample {
  after: StateRecord;
  reward: number;
  terminated: boolean;
  /** The step ended by the step limit (left out of consequence rules: the limit is not in the state). */
  truncated?: boolean;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A scalar as a `Map` key: two scalars get equal keys exactly when their canonical JSON is equal (a
 * `Map` already equates 0 and −0; NaN and ±Infinity are JSON `null`).
 */
function scalarKey(v: StateScalar): StateScalar {
  return typeof v === "number" && !Number.isFinite(v) ? null : v;
}

/** A path's value on one record, as `decidingCondition` reads it: a scalar's key, else absent or a list. */
const ABSENT = Symbol("absent");
const LIST = Symbol("list");
type Cell = StateScalar | typeof ABSENT | typeof LIST;

/** One path over all records: each record's cell, and its value where it holds a scalar. */
interface Column {
  path: string;
  cells: Cell[];
  values: Array<StateValue | undefined>;
}

/**
 * The records by path, read once (every path any record has, sorted by name): one pass over the
 * records serves every condition tested on them.
 */
function columnsOf(records: ReadonlyArray<StateRecord>): Column[] {
  const byPath = new Map<string, Column>();
  for (let i = 0; i < records.length; i++) {
    for (const [path, v] of Object.entries(records[i] as StateRecord)) {
      let column = byPath.get(path);
      if (column === undefined) {
        column = {
          path,
          cells: new Array<Cell>(records.length).fill(ABSENT),
          values: new Array(records.length),
        };
        byPath.set(path, column);
      }
      if (v === undefined) continue;
      column.cells[i] = Array.isArray(v) ? LIST : scalarKey(v);
      column.values[i] = v;
    }
  }
  return [...byPath.values()].sort((a, b) => compare(a.path, b.path));
}

/**
 * The first next-state path (fewest values, then name) whose value decides `hit` exactly on every
 * record: defined on all hits, and the values on hits never seen on a miss. `skip` paths are not tested.
 */
function decidingCondition(
  columns: ReadonlyArray<Column>,
  hit: ReadonlyArray<boolean>,
  skip: ReadonlySet<string> = new Set(),
): OutcomeRule["when"] | undefined {
  let best: { path: string; values: StateValue[] } | undefined;
  for (const { path, cells, values: held } of columns) {
    if (skip.has(path)) continue;
    // Keyed by `scalarKey`: equal keys exactly where the canonical JSON is equal.
    const onHit = new Map<StateScalar, StateValue>();
    let ok = true;
    for (let i = 0; i < cells.length; i++) {
      if (!hit[i]) continue;
      const c = cells[i] as Cell;
      if (c === ABSENT || c === LIST) {
        ok = false;
        break;
      }
      onHit.set(c, held[i] as StateValue);
    }
    if (!ok || onHit.size === 0) continue;
    // A list on a miss never matches: the hits hold scalars only.
    let misses = false;
    for (let i = 0; i < cells.length && !misses; i++) {
      const c = cells[i] as Cell;
      misses = !hit[i] && c !== ABSENT && c !== LIST && onHit.has(c);
    }
    if (misses) continue;
    if (!best || onHit.size < best.values.length) {
      const values = [...onHit.values()]
        .map((v) => [canonicalJson(v), v] as const)
        .sort((a, b) => compare(a[0], b[0]))
        .map(([, v]) => v);
      best = { path, values };
    }
  }
  if (!best) return undefined;
  return best.values.length === 1
    ? { path: best.path, op: "eq", value: best.values[0] as StateValue }
    : { path: best.path, op: "in", value: best.values as StateScalar[] };
}

/**
 * Consequence rules: for each derived path and each value it took in a next state (steps cut by the
 * step limit aside), the next-state condition on the other paths that decides that value exactly.
 */
function induceConsequenceRules(
  samples: ReadonlyArray<OutcomeSample>,
  derivedPaths: ReadonlyArray<string>,
): OutcomeRule[] {
  const rules: OutcomeRule[] = [];
  const skip = new Set(derivedPaths);
  for (const path of [...derivedPaths].sort()) {
    const kept = samples.filter((s) => !s.truncated && s.after[path] !== undefined);
    const records = kept.map((s) => s.after);
    const columns = columnsOf(records);
    const keys = records.map((r) => canonicalJson(r[path] as StateValue));
    const values = new Map<string, StateValue>();
    records.forEach((r, i) => {
      values.set(keys[i] as string, r[path] as StateValue);
    });
    for (const [key, value] of [...values.entries()].sort((a, b) => compare(a[0], b[0]))) {
      const hit = keys.map((k) => k === key);
      const when = decidingCondition(columns, hit, skip);
      const support = hit.filter(Boolean).length;
      if (when) rules.push({ field: "state", path, value, when, support });
    }
  }
  return rules;
}

/**
 * When the episode ends and which rewards come, as conditions on the next state: `terminated` is true
 * exactly when a path holds one of some values; each reward other than the most common one likewise.
 * Then the consequence rules of `derivedPaths` (`field: "state"`).
 */
export function induceOutcomeRules(
  samples: ReadonlyArray<OutcomeSample>,
  derivedPaths: ReadonlyArray<string> = [],
): OutcomeRule[] {
  const rules: OutcomeRule[] = [];
  const columns = columnsOf(samples.map((s) => s.after));
  const ended = samples.filter((s) => s.terminated).length;
  if (ended > 0) {
    const when = decidingCondition(
      columns,
      samples.map((s) => s.terminated),
    );
    if (when) rules.push({ field: "terminated", value: true, when, support: ended });
  }
  const usual = mostCommonReward(samples.map((s) => s.reward));
  const others = [...new Set(samples.map((s) => s.reward))].filter((r) => r !== usual).sort((a, b) => a - b);
  for (const reward of others) {
    const hit = samples.map((s) => s.reward === reward);
    const when = decidingCondition(columns, hit);
    if (when) rules.push({ field: "reward", value: reward, when, support: hit.filter(Boolean).length });
  }
  return [...rules, ...induceConsequenceRules(samples, derivedPaths)];
}

/** The most common reward of the samples (ties: the smaller), 0 without samples. */
export function mostCommonReward(rewards: ReadonlyArray<number>): number {
  const counts = new Map<number, number>();
  for (const r of rewards) counts.set(r, (counts.get(r) ?? 0) + 1);
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  return best ? best[0] : 0;
}
