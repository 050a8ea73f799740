import { canonicalJson, type StateScalar, type StateValue } from "../../core/index.ts";
import type { Condition } from "./schema.ts";

/** One side of a split: its condition and the members (by index) it holds, all explained by `outcome`. */
export interface Side {
  condition: Condition;
  outcome: number;
  members: number[];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The simplest condition that holds on `mine` and on none of `others` (values by canonical JSON). */
function conditionFor(
  path: string,
  mine: StateValue[],
  others: StateValue[],
): { c: Condition; size: number } {
  if (mine.length === 1) return { c: { path, op: "eq", value: mine[0] as StateValue }, size: 1 };
  if (others.length === 1) return { c: { path, op: "ne", value: others[0] as StateValue }, size: 1 };
  if ([...mine, ...others].every((v) => typeof v === "number")) {
    const m = mine as number[];
    const o = others as number[];
    if (Math.max(...m) < Math.min(...o)) return { c: { path, op: "lt", value: Math.min(...o) }, size: 1 };
    if (Math.min(...m) > Math.max(...o)) return { c: { path, op: "gte", value: Math.min(...m) }, size: 1 };
  }
  return { c: { path, op: "in", value: mine as StateScalar[] }, size: mine.length };
}

/**
 * A before-state test that splits a group into deterministic sides: for one path defined in every
 * member's view, each value's members share an explaining outcome (the most frequent one they share),
 * and the values that pick the same outcome form a side with at least `minSide` members. `explains[i]`
 * lists the outcomes that explain member i. Prefers a path the outcomes change, then the fewest
 * condition values, then the path name. Undefined when no path separates the group.
 */
export function separatingSides(
  views: ReadonlyArray<Readonly<Record<string, StateValue>>>,
  explains: ReadonlyArray<ReadonlyArray<number>>,
  changed: ReadonlySet<string>,
  minSide = 2,
): Side[] | undefined {
  const paths = [...new Set(views.flatMap((v) => Object.keys(v)))].sort();
  let best: { sides: Side[]; score: [number, number, string] } | undefined;
  for (const path of paths) {
    const byValue = new Map<string, { value: StateValue; members: number[] }>();
    let defined = true;
    views.forEach((view, i) => {
      const v = view[path];
      if (v === undefined || Array.isArray(v)) defined = false;
      else {
        const key = canonicalJson(v);
        const entry = byValue.get(key) ?? { value: v, members: [] };
        entry.members.push(i);
        byValue.set(key, entry);
      }
    });
    if (!defined || byValue.size < 2) continue;
    const sides = new Map<number, { keys: string[]; members: number[] }>();
    let ok = true;
    for (const [key, { members }] of [...byValue.entries()].sort((a, b) => compare(a[0], b[0]))) {
      let shared = explains[members[0] as number] as ReadonlyArray<number>;
      for (const m of members)
        shared = shared.filter((o) => (explains[m] as ReadonlyArray<number>).includes(o));
      if (shared.length === 0) {
        ok = false;
        break;
      }
      const outcome = Math.min(...shared);
      const side = sides.get(outcome) ?? { keys: [], members: [] };
      side.keys.push(key);
      side.members.push(...members);
      sides.set(outcome, side);
    }
    if (!ok || sides.size < 2 || [...sides.values()].some((s) => s.members.length < minSide)) continue;
    const valueAt = (k: string) => (byValue.get(k) as { value: StateValue }).value;
    const allKeys = [...byValue.keys()];
    let size = 0;
    const out: Side[] = [...sides.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([outcome, s]) => {
        const others = allKeys.filter((k) => !s.keys.includes(k)).sort(compare);
        const { c, size: n } = conditionFor(path, s.keys.map(valueAt), others.map(valueAt));
        size += n;
        return { condition: c, outcome, members: s.members.sort((a, b) => a - b) };
      });
    const score: [number, number, string] = [changed.has(path) ? 0 : 1, size, path];
    if (
      !best ||
      score[0] < best.score[0] ||
      (score[0] === best.score[0] &&
        (score[1] < best.score[1] || (score[1] === best.score[1] && path < best.score[2])))
    ) {
      best = { sides: out, score };
    }
  }
  return best?.sides;
}
