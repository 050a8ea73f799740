import { type Action, canonicalJson } from "../core/index.ts";
import type { Bucket, Bucketing } from "./buckets.ts";
import { hardCutoffOf, type SearchConfig } from "./config.ts";

/** K = max(1, min(kMax, ceil(totalProbeBudget / alive))); 1 when no environment slot is free. */
export function probesPerNode(aliveNodes: number, config: SearchConfig, freeEnvSlots: number): number {
  if (freeEnvSlots <= 0) return 1;
  return Math.max(1, Math.min(config.kMax, Math.ceil(config.totalProbeBudget / Math.max(1, aliveNodes))));
}

export interface GateNode {
  /** Actions executed so far (the step index of the next action). */
  step: number;
  /** Branching events left to this node. */
  budget: number;
  /** Whether this node has branched before. */
  hasBranched: boolean;
}

export const GATE_REASONS = [
  "branch",
  "single_bucket",
  "late_step_deferral",
  "budget_exhausted",
  "hard_cutoff",
  "per_step_cap",
  "node_cap",
  "no_valid_bucket",
] as const;
export type GateReason = (typeof GATE_REASONS)[number];

export interface GateDecision {
  reason: GateReason;
  /** The bucket the node itself executes (null when no candidate parsed). */
  primary: Bucket | null;
  /** Buckets that spawn children (empty unless reason is "branch"). */
  children: Bucket[];
}

/**
 * The gates, in order (SEEDS.md §1): ≥ 2 valid buckets; late-step deferral (from `lateStepDeferral`
 * a node that has not branched yet does not start); branch budget > 0; step < hard cutoff. Passing
 * all, the next buckets up to the per-step cap spawn children; the parent keeps the top bucket.
 */
export function decideBranching(node: GateNode, bucketing: Bucketing, config: SearchConfig): GateDecision {
  const valid = bucketing.buckets.filter((b) => b.size >= config.minBucketSize);
  const primary = valid[0] ?? bucketing.buckets[0] ?? null;
  const none = (reason: GateReason): GateDecision => ({ reason, primary, children: [] });
  if (primary === null) return none("no_valid_bucket");
  if (valid.length < 2) return none("single_bucket");
  const closed = closedGate(node, config);
  if (closed !== undefined) return none(closed);
  return { reason: "branch", primary, children: valid.slice(1, 1 + config.perStepCap) };
}

/**
 * The first gate, after the bucket checks, that `node` fails whatever its candidates: late-step
 * deferral, branch budget, hard cutoff, a per-step cap of 0. Each holds for the node's later steps too
 * (its step only grows, its budget only shrinks, and a node that does not branch stays unbranched).
 */
function closedGate(node: GateNode, config: SearchConfig): GateReason | undefined {
  if (node.step >= config.lateStepDeferral && !node.hasBranched) return "late_step_deferral";
  if (node.budget <= 0) return "budget_exhausted";
  if (node.step >= hardCutoffOf(config)) return "hard_cutoff";
  if (config.perStepCap <= 0) return "per_step_cap";
  return undefined;
}

/** Whether a node may still pass the gates at a later step: false once a gate it fails can never pass again. */
export function mayBranchLater(node: GateNode, config: SearchConfig): boolean {
  return closedGate(node, config) === undefined;
}

export type EndReason = "done" | "fail" | "terminated" | "horizon" | "repeated_action" | "consecutive_waits";

/**
 * Whether a node ends after executing `actions` (its whole prefix, last action last): done/fail, the
 * environment ended the episode, the horizon, N identical consecutive actions, or M consecutive waits.
 */
export function endReason(
  actions: ReadonlyArray<Action>,
  envEnded: boolean,
  config: Pick<SearchConfig, "horizon" | "maxIdenticalActions" | "maxConsecutiveWaits">,
): EndReason | null {
  const last = actions[actions.length - 1];
  if (last?.type === "done") return "done";
  if (last?.type === "fail") return "fail";
  if (envEnded) return "terminated";
  if (actions.length >= config.horizon) return "horizon";
  if (actions.length >= config.maxIdenticalActions) {
    const tail = actions.slice(-config.maxIdenticalActions).map((a) => canonicalJson(a));
    if (tail.every((t) => t === tail[0])) return "repeated_action";
  }
  if (actions.length >= config.maxConsecutiveWaits) {
    if (actions.slice(-config.maxConsecutiveWaits).every((a) => a.type === "wait"))
      return "consecutive_waits";
  }
  return null;
}
