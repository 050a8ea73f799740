import type { Action, HistoryEntry, Observation, StepRecord, VerifierResult } from "../core/index.ts";
import type { NoiseEventRecord, PlannedNoiseEvent } from "../noise/noisy-environment.ts";
import type { NoiseTag } from "../noise/tags.ts";
import type { GateReason } from "./gates.ts";

/** A node's noise: whether its own branch is noisy, the schedule of its path, what fired, its tag. */
export interface NodeNoise {
  /** This branch draws noise for its own steps (else it is a clean control after its branch point). */
  noisy: boolean;
  /** Events of the whole path: those inherited up to the branch point, then this branch's own. */
  schedule: PlannedNoiseEvent[];
  /** Leaves: the events that applied on the path, with when they were recovered. */
  events?: NoiseEventRecord[];
  tag?: NoiseTag;
}

export type NodeStatus = "pending" | "alive" | "leaf" | "dropped";

/** One gate decision, kept for inspection and tree export. */
export interface GateLogEntry {
  step: number;
  reason: GateReason;
  /** [fingerprint, size] of the valid buckets, ranked. */
  buckets: Array<[string, number]>;
  invalid: number;
  probes: number;
}

/** A child's first action, executed once it has reached its parent's state. */
export interface PendingAction {
  action: Action;
  raw: string;
  fingerprint: string;
  bucketSize: number;
}

/**
 * A search node: an executed action prefix and the state it reached. A node owns the steps it executed
 * itself (`steps`, indices from `fromStep` on); the steps before come from its ancestors.
 */
export interface SearchNode {
  id: string;
  /** Creation order within the tree (deterministic; the queue and all iteration follow it). */
  seq: number;
  parentId: string | null;
  /** Index of this node's first own step (0 for the root). */
  fromStep: number;
  /** Every action from the root that this node's environment has executed. */
  prefix: Action[];
  steps: StepRecord[];
  budget: number;
  hasBranched: boolean;
  status: NodeStatus;
  /** The observation the node's environment shows now (alive nodes). */
  observation?: Observation;
  /** Fingerprint of the state the node has reached (after its last action). */
  stateFingerprint?: string;
  /** For pending children: the action to run and the parent's state fingerprint to reach first. */
  pending?: PendingAction;
  expectedFingerprint?: string;
  envEnded: boolean;
  endReason?: string;
  outcome?: VerifierResult;
  /** Why a node was dropped (replay mismatch). */
  dropReason?: string;
  gateLog: GateLogEntry[];
  /** Noise injection (searches with a noise fraction > 0). */
  noise?: NodeNoise;
  /** Last round in which the node changed. */
  round: number;
}

/** The node's full step path from the root: ancestors' steps up to where each child split off. */
export function pathSteps(node: SearchNode, nodes: ReadonlyMap<string, SearchNode>): StepRecord[] {
  const chain: SearchNode[] = [];
  let cur: SearchNode | undefined = node;
  while (cur) {
    chain.unshift(cur);
    cur = cur.parentId ? nodes.get(cur.parentId) : undefined;
  }
  const out: StepRecord[] = [];
  for (let i = 0; i < chain.length; i++) {
    const n = chain[i] as SearchNode;
    const until = chain[i + 1]?.fromStep ?? Number.POSITIVE_INFINITY;
    for (const s of n.steps) if (s.index < until) out.push(s);
  }
  return out;
}

/** Which node executed step `index` on this node's path (for step deduplication across leaves). */
export function stepOwners(node: SearchNode, nodes: ReadonlyMap<string, SearchNode>): Map<number, string> {
  const owners = new Map<number, string>();
  let cur: SearchNode | undefined = node;
  let until = Number.POSITIVE_INFINITY;
  while (cur) {
    for (const s of cur.steps) if (s.index < until && !owners.has(s.index)) owners.set(s.index, cur.id);
    until = cur.fromStep;
    cur = cur.parentId ? nodes.get(cur.parentId) : undefined;
  }
  return owners;
}

export function historyOf(steps: ReadonlyArray<StepRecord>): HistoryEntry[] {
  return steps
    .filter((s) => s.action !== null)
    .map((s) => ({ observation: s.observation, action: s.action, raw: s.raw }));
}
