import { canonicalJson, type StateRecord, type StateScalar, type StateValue } from "../../core/index.ts";
import type { OutcomeRule } from "./schema.ts";

export interface OutcomeSample {
  after: StateRecord;
  reward: number;
  terminated: boolean;
}

/**
 * The first next-state path (fewest values, then name) whose value decides `hit` exactly on every
 * sample: defined on all hits, and the values on hits never seen on a miss.
 */
function decidingCondition(
  samples: ReadonlyArray<OutcomeSample>,
  hit: (s: OutcomeSample) => boolean,
): OutcomeRule["when"] | undefined {
  const paths = [...new Set(samples.flatMap((s) => Object.keys(s.after)))].sort();
  let best: { path: string; values: StateValue[] } | undefined;
  for (const path of paths) {
    const onHit = new Map<string, StateValue>();
    let ok = true;
    for (const s of samples) {
      const v = s.after[path];
      if (hit(s)) {
        if (v === undefined || Array.isArray(v)) {
          ok = false;
          break;
        }
        onHit.set(canonicalJson(v), v);
      }
    }
    if (!ok || onHit.size === 0) continue;
    const misses = samples.some((s) => {
      const v = s.after[path];
      return !hit(s) && v !== undefined && onHit.has(canonicalJson(v));
    });
    if (misses) continue;
    if (!best || onHit.size < best.values.length) {
      const values = [...onHit.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, v]) => v);
      best = { path, values };
    }
  }
  if (!best) return undefined;
  return best.values.length === 1
    ? { path: best.path, op: "eq", value: best.values[0] as StateValue }
    : { path: best.path, op: "in", value: best.values as StateScalar[] };
}

/**
 * When the episode ends and which rewards come, as conditions on the next state: `terminated` is true
 * exactly when a path holds one of some values; each reward other than the most common one likewise.
 */
export function induceOutcomeRules(samples: ReadonlyArray<OutcomeSample>): OutcomeRule[] {
  const rules: OutcomeRule[] = [];
  const ended = samples.filter((s) => s.terminated).length;
  if (ended > 0) {
    const when = decidingCondition(samples, (s) => s.terminated);
    if (when) rules.push({ field: "terminated", value: true, when, support: ended });
  }
  const rewardCounts = new Map<number, number>();
  for (const s of samples) rewardCounts.set(s.reward, (rewardCounts.get(s.reward) ?? 0) + 1);
  const byCount = [...rewardCounts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  for (const [reward, count] of byCount.slice(1).sort((a, b) => a[0] - b[0])) {
    const when = decidingCondition(samples, (s) => s.reward === reward);
    if (when) rules.push({ field: "reward", value: reward, when, support: count });
  }
  return rules;
}
