import type { Environment, Proposal } from "../core/index.ts";
import { mayBranchLater } from "./gates.ts";
import type { SearchNode } from "./node.ts";
import { Prewarm } from "./prewarm.ts";
import { Activations } from "./tree-activations.ts";
import { assignNoise } from "./tree-noise.ts";
import { type Slot, slotsOf, type TreeRun } from "./tree-phases.ts";
import {
  type ActiveNode,
  branch,
  type MoveHooks,
  move,
  noiseContext,
  probesOf,
  propose,
} from "./tree-round.ts";
import type { TreeResult, TreeSearchDeps, TreeSpec } from "./tree-spec.ts";
import { TreeState } from "./tree-state.ts";

/**
 * ENVS search of one task (SEEDS.md §1), round by round: every alive node samples K candidates from the
 * frozen policy, buckets them by behaviour fingerprint, passes the gates, keeps the top bucket itself
 * and queues a child per further bucket up to the per-step cap. Children reach the parent's state by
 * snapshot or replay, checked by fingerprint (a mismatch drops the child, reported). Ended nodes are
 * leaves, scored by the task's verifier. Everything is keyed deterministically (node seq, step), so a
 * run resumed from its stored nodes (`resume`) continues exactly as an uninterrupted one.
 */
export async function searchTree(
  deps: TreeSearchDeps,
  spec: TreeSpec,
  resume?: ReadonlyArray<SearchNode>,
): Promise<TreeResult> {
  const state = new TreeState(spec.treeId);
  const warm = deps.warm ?? new Prewarm(deps.runtime.logger);
  const target = { taskId: spec.task.id, seed: spec.seed };
  const run: TreeRun = { deps, spec, state, warm };
  // Environments still held by the tree before are taken last.
  const free: Slot[] = slotsOf(deps.envs, spec)
    .reverse()
    .sort((a, b) => Number(warm.isHeld(b.base)) - Number(warm.isHeld(a.base)));
  let active: ActiveNode[] = [];

  if (resume && resume.length > 0) state.resume(resume);
  else {
    const root = state.add({
      parentId: null,
      fromStep: 0,
      prefix: [],
      budget: spec.config.rootBranchBudget,
      hasBranched: false,
      status: "pending",
    });
    assignNoise(spec.noise, root, null, noiseContext(run));
    state.queue.push(root);
  }

  let interrupted = false;
  let handedOver = false;
  let handOverWaits = false;
  const activations = new Activations(run, free);
  /** Environments held for the next tree until this tree's node on each ends (after the hand-over). */
  const lent = new Map<Environment, () => void>();
  const hooks: MoveHooks = {
    captured: (children) => activations.captured(children),
    freed: (slot) => {
      activations.freed(slot);
      lent.get(slot.base)?.();
      lent.delete(slot.base);
      if (handOverWaits) {
        handOverWaits = false;
        deps.onHandOver?.();
      }
    },
  };
  // A prewarm still resetting an environment is awaited on every way out, a thrown error included
  // (here, or by whoever passed `deps.warm`), so that the caller never gets (or closes) an
  // environment in the middle of a reset; so is a node still reaching its state.
  try {
    while (true) {
      if (deps.signal?.aborted) {
        interrupted = true;
        break;
      }
      state.advance();
      activations.roundEnded();
      state.counters.rounds += 1;
      // Queued nodes reach their states concurrently, one environment each (the first of them may
      // have started during the previous round's moves); a slot whose node is not left alive takes
      // the next queued node.
      activations.start();
      // The environments the round leaves idle start getting the task ready while its nodes reach
      // their states (a tree's first round: while the root resets), not after.
      if (!handedOver) warm.start(free, target);
      active.push(...(await activations.settle()));
      // Environments left idle get the tree's task ready for the children to come. Once no child can
      // come any more (for good: nothing queued, and no node can branch again), the tree hands its
      // environments over to the next tree: the idle ones at once, the others as their nodes end.
      if (!handedOver && !expectsChildren(run, active)) {
        handedOver = true;
        if (deps.onHandOver) {
          for (const { slot } of active) lent.set(slot.base, warm.hold(slot.base));
          // The next tree starts once an environment is free for its first node.
          if (free.length > 0) deps.onHandOver();
          else handOverWaits = true;
        }
      }
      if (!handedOver) warm.start(free, target);
      active.sort((a, b) => a.node.seq - b.node.seq);
      if (active.length === 0 && state.queue.length === 0) {
        deps.onRound?.([...state.changed], state.counters);
        break;
      }
      const k = probesOf(run, active.length, free.length);
      const proposals = await propose(run, active, k);
      const branchings = active.map((entry, i) => branch(run, entry, proposals[i] as Proposal, k));
      for (const b of branchings) activations.hold(b.children);
      // While the nodes move, environments they free (and idle ones) take the next round's first
      // queued nodes as soon as their parents have recorded their states.
      const stillAlive = await move(run, active, branchings, hooks);
      active = active.filter((_, i) => stillAlive[i]);
      deps.onRound?.(
        [...state.changed].sort((a, b) => a.seq - b.seq).map((n) => activations.recordOf(n)),
        state.counters,
      );
      // Progress as of the round's end: leaves of nodes started ahead count in their own round.
      const done = state.leaves().filter((n) => activations.recordOf(n) === n);
      deps.onProgress?.({
        treeId: spec.treeId,
        taskId: spec.task.id,
        alive: active.length,
        queued: state.queue.length + activations.aheadCount,
        leaves: done.length,
        successes: done.filter((n) => n.outcome?.success).length,
        busyEnvs: active.length,
      });
    }
  } finally {
    await activations.idle();
    for (const release of lent.values()) release();
    if (!deps.warm) await warm.settle();
  }
  // An interrupted tree is what its last complete round stored: nodes started ahead are put back.
  if (interrupted) activations.rollBack();
  return { nodes: state.nodes, counters: state.counters, interrupted };
}

/**
 * Whether the tree may still queue a node: some are queued, or an active node may branch later and
 * the node cap leaves room (every gate it can fail for good, see `mayBranchLater`).
 */
function expectsChildren({ spec, state }: TreeRun, active: ReadonlyArray<ActiveNode>): boolean {
  if (state.queue.length > 0) return true;
  if (state.nodes.size >= spec.config.maxNodesPerTree) return false;
  return active.some(({ node }) =>
    mayBranchLater(
      { step: node.prefix.length, budget: node.budget, hasBranched: node.hasBranched },
      spec.config,
    ),
  );
}
