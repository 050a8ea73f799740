import { canonicalJson, type StateFieldType, type StateRecord, type StateValue } from "../../core/index.ts";
import type { Invariants } from "./schema.ts";

/** A path's pattern: numeric segments become `*` (`cell.3.5` → `cell.*.*`), so per-square fields pool. */
export function fieldPattern(path: string): string {
  let pattern = patterns.get(path);
  if (pattern === undefined) {
    pattern = path
      .split(".")
      .map((part) => (/^\d+$/.test(part) ? "*" : part))
      .join(".");
    if (patterns.size > 100_000) patterns.clear();
    patterns.set(path, pattern);
  }
  return pattern;
}
const patterns = new Map<string, string>();

/** What the traces showed of one field pattern. */
export interface FieldStats {
  types: Set<StateFieldType>;
  /** Distinct values by canonical JSON. */
  values: Map<string, StateValue>;
  min: number;
  max: number;
  /** Some transition changed, added or removed a path of this pattern. */
  changed: boolean;
  /** Distinct values in the first state of each episode. */
  initial: Map<string, StateValue>;
}

function typeOf(value: StateValue): StateFieldType {
  if (Array.isArray(value)) return "list";
  if (value === null) return "null";
  return typeof value as StateFieldType;
}

/** Collects field statistics; feed it every state, `changed` paths and first states of episodes. */
export class FieldStatsCollector {
  readonly stats = new Map<string, FieldStats>();

  private entry(pattern: string): FieldStats {
    let s = this.stats.get(pattern);
    if (!s) {
      s = {
        types: new Set(),
        values: new Map(),
        min: Infinity,
        max: -Infinity,
        changed: false,
        initial: new Map(),
      };
      this.stats.set(pattern, s);
    }
    return s;
  }

  addState(state: StateRecord, first: boolean): void {
    for (const [path, value] of Object.entries(state)) {
      const s = this.entry(fieldPattern(path));
      s.types.add(typeOf(value));
      const key = canonicalJson(value);
      if (!s.values.has(key)) s.values.set(key, value);
      if (typeof value === "number") {
        s.min = Math.min(s.min, value);
        s.max = Math.max(s.max, value);
      }
      if (first && !s.initial.has(key)) s.initial.set(key, value);
    }
  }

  addChanged(paths: ReadonlyArray<string>): void {
    for (const path of paths) this.entry(fieldPattern(path)).changed = true;
  }

  /** The observed numeric range of each pattern that only ever held numbers. */
  ranges(): Map<string, { min: number; max: number }> {
    const out = new Map<string, { min: number; max: number }>();
    for (const [pattern, s] of this.stats) {
      if (s.types.size === 1 && s.types.has("number")) out.set(pattern, { min: s.min, max: s.max });
    }
    return out;
  }
}

function sortedValues(values: Map<string, StateValue>): StateValue[] {
  return [...values.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, v]) => v);
}

/** Fields no transition changed, numeric ranges and (short) value sets, each sorted by pattern. */
export function deriveInvariants(collector: FieldStatsCollector, maxValues: number): Invariants {
  const patterns = [...collector.stats.keys()].sort();
  const invariants: Invariants = { constantWithinEpisode: [], ranges: [], values: [] };
  for (const pattern of patterns) {
    const s = collector.stats.get(pattern) as FieldStats;
    if (!s.changed) invariants.constantWithinEpisode.push(pattern);
    if (s.types.size === 1 && s.types.has("number")) {
      invariants.ranges.push({ path: pattern, min: s.min, max: s.max });
    } else if (s.values.size <= maxValues) {
      invariants.values.push({ path: pattern, values: sortedValues(s.values) });
    }
  }
  return invariants;
}

export { sortedValues, typeOf };
