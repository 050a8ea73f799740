import {
  type Action,
  createRandom,
  type Environment,
  type EnvironmentSnapshot,
  isRehearsalError,
  type Proposal,
  SNAPSHOT_UNSUPPORTED,
} from "../core/index.ts";
import { bucketCandidates } from "./buckets.ts";
import { decideBranching, type GateDecision, probesPerNode } from "./gates.ts";
import { historyOf, pathSteps, type SearchNode } from "./node.ts";
import { assignNoise } from "./tree-noise.ts";
import { execute, finish, guarded, liveObservation, type Slot, type TreeRun } from "./tree-phases.ts";

/** A node holding an environment in this round. */
export interface ActiveNode {
  node: SearchNode;
  slot: Slot;
}

/** The move a node makes this round (its top bucket), or null when it has no valid action. */
export type Move = { action: Action; raw: string } | null;

/** The environment's snapshot, or undefined when it has none for this task (children then replay). */
async function trySnapshot(env: Environment): Promise<EnvironmentSnapshot | undefined> {
  if (!env.capabilities.snapshot || !env.snapshot) return undefined;
  try {
    return await env.snapshot();
  } catch (e) {
    if (isRehearsalError(e) && e.code === SNAPSHOT_UNSUPPORTED) return undefined;
    throw e;
  }
}

/** Phase 1: every active node asks the frozen policy for `k` candidates (keyed by node and step). */
export function propose(run: TreeRun, active: ReadonlyArray<ActiveNode>, k: number): Promise<Proposal[]> {
  const { deps, spec, state } = run;
  return Promise.all(
    active.map(({ node, slot }) => {
      const env = slot.env;
      const steps = pathSteps(node, state.nodes);
      const oracle = env.oracleAction ? () => env.oracleAction!() : undefined;
      return deps.policy.propose(
        {
          task: spec.task,
          observation: liveObservation(node, "propose"),
          history: historyOf(steps),
          stepIndex: node.prefix.length,
          ...(oracle ? { oracle } : {}),
        },
        {
          n: k,
          temperature: spec.config.temperature,
          random: createRandom("search", spec.randomKey, spec.task.id, node.seq, node.prefix.length),
        },
      );
    }),
  );
}

/** The gates' decision, with children cut to the tree's node cap. */
function capped(run: TreeRun, decision: GateDecision): GateDecision {
  const { config } = run.spec;
  const size = run.state.nodes.size;
  if (decision.reason !== "branch" || size + decision.children.length <= config.maxNodesPerTree)
    return decision;
  const room = Math.max(0, config.maxNodesPerTree - size);
  return room > 0
    ? { ...decision, children: decision.children.slice(0, room) }
    : { ...decision, reason: "node_cap", children: [] };
}

/** A node's move this round and, when it branched, the capture of its state for the children. */
export interface Branching {
  move: Move;
  /** The children the node queued this round (they reach its state once `capture` is done). */
  children: SearchNode[];
  /** Records the parent's fingerprint (and snapshot) on its new children; run before the node moves. */
  capture: (() => Promise<void>) | null;
}

/**
 * Phase 2, one node: bucket its candidates, pass the gates (logged), queue a child per further bucket
 * (each to reach this node's state by snapshot or replay, checked by fingerprint); returns its move.
 * Synchronous, so that nodes branch in seq order (all before any node moves); the state capture of
 * every branching node then runs just before its own move (`move`).
 */
export function branch(run: TreeRun, { node, slot }: ActiveNode, proposal: Proposal, k: number): Branching {
  const { spec, state } = run;
  const { config } = spec;
  state.counters.proposals += 1;
  state.counters.candidates += proposal.candidates.length;
  const bucketing = bucketCandidates(proposal.candidates, config);
  const decision = capped(
    run,
    decideBranching(
      { step: node.prefix.length, budget: node.budget, hasBranched: node.hasBranched },
      bucketing,
      config,
    ),
  );
  node.gateLog.push({
    step: node.prefix.length,
    reason: decision.reason,
    buckets: bucketing.buckets.map((b) => [b.fingerprint, b.size]),
    invalid: bucketing.invalid,
    probes: k,
  });
  state.changed.add(node);
  const children: SearchNode[] = [];
  if (decision.children.length > 0) {
    node.budget -= 1;
    node.hasBranched = true;
    for (const b of decision.children) {
      const child = state.add({
        parentId: node.id,
        fromStep: node.prefix.length,
        prefix: [...node.prefix],
        budget: config.childBranchBudget,
        hasBranched: false,
        status: "pending",
        pending: { action: b.representative, raw: b.raw, fingerprint: b.fingerprint, bucketSize: b.size },
      });
      assignNoise(spec.noise, child, node, noiseContext(run));
      state.changed.add(child);
      state.queue.push(child);
      children.push(child);
    }
  }
  const move = decision.primary
    ? { action: decision.primary.representative, raw: decision.primary.raw }
    : null;
  const capture =
    children.length === 0
      ? null
      : async () => {
          // An alive node's recorded fingerprint is that of its current state (nothing stepped since).
          const fingerprint = node.stateFingerprint ?? (await slot.env.fingerprint());
          const snapshot = await trySnapshot(slot.env);
          for (const child of children) {
            child.expectedFingerprint = fingerprint;
            if (snapshot) state.snapshots.set(child.id, snapshot);
          }
        };
  return { move, children, capture };
}

/** What the loop learns from a round's moves while they run (to start the next round's nodes early). */
export interface MoveHooks {
  /** A node has recorded its state for its new children: they may reach it now. */
  captured(children: ReadonlyArray<SearchNode>): void;
  /** A node's work ended and the node is no longer alive: its environment is free. */
  freed(slot: Slot): void;
}

/**
 * Phase 3: every active node records its state for its new children (when it branched), then makes
 * its move, each on its own environment without waiting for the others' captures; returns which are
 * still alive (the rest ended or dropped), telling `hooks` of each capture and each freed environment
 * as it happens. Every node's work has ended when it returns or throws.
 */
export async function move(
  run: TreeRun,
  active: ReadonlyArray<ActiveNode>,
  branchings: ReadonlyArray<Branching>,
  hooks: MoveHooks,
): Promise<boolean[]> {
  const settled = await Promise.allSettled(
    active.map(async ({ node, slot }, i) => {
      const b = branchings[i] as Branching;
      if (b.capture) {
        await b.capture();
        hooks.captured(b.children);
      }
      const m = b.move;
      const alive = await guarded(run, node, async () => {
        if (!m) {
          await finish(run, node, slot, "no_valid_action");
          run.state.changed.add(node);
          return false;
        }
        return execute(run, node, slot, m.action, m.raw);
      });
      if (!alive) hooks.freed(slot);
      return alive;
    }),
  );
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<boolean>).value);
}

/** One round's probes per node: from the alive nodes and the room for children. */
export function probesOf(run: TreeRun, active: number, freeSlots: number): number {
  const { config } = run.spec;
  return probesPerNode(active, config, freeSlots + config.maxQueued - run.state.queue.length);
}

/** What noise assignment reads of the tree. */
export function noiseContext(run: TreeRun) {
  return {
    treeId: run.spec.treeId,
    taskId: run.spec.task.id,
    randomKey: run.spec.randomKey,
    horizon: run.spec.config.horizon,
    leaves: () => run.state.leaves(),
  };
}
