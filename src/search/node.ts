import { z } from "zod";
import {
  ActionSchema,
  type HistoryEntry,
  type Observation,
  type StepRecord,
  StepRecordSchema,
  VerifierResultSchema,
} from "../core/index.ts";
import { NoiseEventRecordSchema, PlannedNoiseEventSchema } from "../noise/noisy-environment.ts";
import { NOISE_TAGS } from "../noise/tags.ts";
import { GATE_REASONS } from "./gates.ts";

/** A node's noise: whether its own branch is noisy, the schedule of its path, what fired, its tag. */
export const NodeNoiseSchema = z.object({
  /** This branch draws noise for its own steps (else it is a clean control after its branch point). */
  noisy: z.boolean(),
  /** Events of the whole path: those inherited up to the branch point, then this branch's own. */
  schedule: z.array(PlannedNoiseEventSchema),
  /** Leaves: the events that applied on the path, with when they were recovered. */
  events: z.array(NoiseEventRecordSchema).optional(),
  tag: z.enum(NOISE_TAGS).optional(),
});
export type NodeNoise = z.infer<typeof NodeNoiseSchema>;

export const NODE_STATUSES = ["pending", "alive", "leaf", "dropped"] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

/** One gate decision, kept for inspection and tree export. */
export const GateLogEntrySchema = z.object({
  step: z.number().int(),
  reason: z.enum(GATE_REASONS),
  /** [fingerprint, size] of the valid buckets, ranked. */
  buckets: z.array(z.tuple([z.string(), z.number()])),
  invalid: z.number().int(),
  probes: z.number().int(),
});
export type GateLogEntry = z.infer<typeof GateLogEntrySchema>;

/** A child's first action, executed once it has reached its parent's state. */
export const PendingActionSchema = z.object({
  action: ActionSchema,
  raw: z.string(),
  fingerprint: z.string(),
  bucketSize: z.number().int(),
});
export type PendingAction = z.infer<typeof PendingActionSchema>;

/**
 * What a stored node's `data` holds: every field of a node but its id, parent and status (columns of
 * the store's record) and its live observation (re-derived on resume).
 */
export const StoredNodeDataSchema = z.object({
  /** Creation order within the tree (deterministic; the queue and all iteration follow it). */
  seq: z.number().int().nonnegative(),
  /** Index of this node's first own step (0 for the root). */
  fromStep: z.number().int().nonnegative(),
  /** Every action from the root that this node's environment has executed. */
  prefix: z.array(ActionSchema),
  steps: z.array(StepRecordSchema),
  budget: z.number().int(),
  hasBranched: z.boolean(),
  /** Fingerprint of the state the node has reached (after its last action). */
  stateFingerprint: z.string().optional(),
  /** For pending children: the action to run and the parent's state fingerprint to reach first. */
  pending: PendingActionSchema.optional(),
  expectedFingerprint: z.string().optional(),
  envEnded: z.boolean(),
  endReason: z.string().optional(),
  outcome: VerifierResultSchema.optional(),
  /** Why a node was dropped (replay mismatch, infrastructure failure). */
  dropReason: z.string().optional(),
  gateLog: z.array(GateLogEntrySchema),
  /** Noise injection (searches with a noise fraction > 0). */
  noise: NodeNoiseSchema.optional(),
  /** Last round in which the node changed. */
  round: z.number().int().nonnegative(),
});
export type StoredNodeData = z.infer<typeof StoredNodeDataSchema>;

/**
 * A search node: an executed action prefix and the state it reached. A node owns the steps it executed
 * itself (`steps`, indices from `fromStep` on); the steps before come from its ancestors.
 */
export interface SearchNode extends StoredNodeData {
  id: string;
  parentId: string | null;
  status: NodeStatus;
  /** The observation the node's environment shows now (alive nodes). */
  observation?: Observation;
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
