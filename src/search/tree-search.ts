import type { Proposal } from "../core/index.ts";
import { mayBranchLater } from "./gates.ts";
import type { SearchNode } from "./node.ts";
import { Prewarm } from "./prewarm.ts";
import { assignNoise } from "./tree-noise.ts";
import { activate, guarded, type Slot, slotsOf, type TreeRun } from "./tree-phases.ts";
import { type ActiveNode, branch, move, noiseContext, probesOf, propose } from "./tree-round.ts";
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
  const free: Slot[] = slotsOf(deps.envs, spec).reverse();
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
  // A prewarm still resetting an environment is awaited on every way out, a thrown error included
  // (here, or by whoever passed `deps.warm`), so that the caller never gets (or closes) an
  // environment in the middle of a reset.
  try {
    while (true) {
      if (deps.signal?.aborted) {
        interrupted = true;
        break;
      }
      state.round += 1;
      state.counters.rounds += 1;
      state.changed.clear();
      // Queued nodes reach their states concurrently, one environment each; a slot whose node failed
      // takes the next queued node.
      while (free.length > 0 && state.queue.length > 0) {
        const batch: ActiveNode[] = [];
        while (free.length > 0 && state.queue.length > 0)
          batch.push({ node: state.queue.shift() as SearchNode, slot: free.pop() as Slot });
        const reached = await Promise.all(
          batch.map(({ node, slot }) => guarded(run, node, () => activate(run, node, slot))),
        );
        batch.forEach((entry, i) => {
          if (reached[i]) active.push(entry);
          else free.push(entry.slot);
        });
      }
      // Environments left idle get the tree's task ready for the children to come; once no child can
      // come any more (for good: nothing queued, and no node can branch again), the next tree's task.
      handedOver ||= spec.next !== undefined && !expectsChildren(run, active);
      if (handedOver && spec.next)
        // The next tree's first node takes the first environment and resets it: no prewarm there.
        warm.start(
          free.filter((slot) => slot.env !== deps.envs[0]),
          spec.next,
        );
      else warm.start(free, target);
      active.sort((a, b) => a.node.seq - b.node.seq);
      if (active.length === 0 && state.queue.length === 0) {
        deps.onRound?.([...state.changed], state.counters);
        break;
      }
      const k = probesOf(run, active.length, free.length);
      const proposals = await propose(run, active, k);
      const branchings = active.map((entry, i) => branch(run, entry, proposals[i] as Proposal, k));
      const stillAlive = await move(run, active, branchings);
      const next: ActiveNode[] = [];
      active.forEach((entry, i) => {
        if (stillAlive[i]) next.push(entry);
        else free.push(entry.slot);
      });
      active = next;
      deps.onRound?.(
        [...state.changed].sort((a, b) => a.seq - b.seq),
        state.counters,
      );
      const done = state.leaves();
      deps.onProgress?.({
        treeId: spec.treeId,
        taskId: spec.task.id,
        alive: active.length,
        queued: state.queue.length,
        leaves: done.length,
        successes: done.filter((n) => n.outcome?.success).length,
        busyEnvs: active.length,
      });
    }
  } finally {
    if (!deps.warm) await warm.settle();
  }
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
