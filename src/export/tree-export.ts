import { loadTreeNodes } from "../search/index.ts";
import type { RunStore } from "../store/contract.ts";
import { requireSearchRun } from "./run-checks.ts";

/** A search tree as JSON: nodes with parent links, actions, gate decisions and verified outcomes. */
export function exportTrees(store: RunStore, runId: string, taskIds?: ReadonlyArray<string>): unknown {
  const run = requireSearchRun(store, runId, "export tree");
  const trees = store.listTrees(runId).filter((t) => !taskIds || taskIds.includes(t.taskId));
  return {
    schemaVersion: 1,
    runId,
    seed: run.seed,
    trees: trees.map((t) => ({
      treeId: t.id,
      taskId: t.taskId,
      seed: t.seed,
      status: t.status,
      counters: t.data.counters ?? null,
      nodes: loadTreeNodes(store, t.id).map((n) => ({
        id: n.id,
        seq: n.seq,
        parentId: n.parentId,
        status: n.status,
        fromStep: n.fromStep,
        budgetLeft: n.budget,
        actions: n.steps.map((s) => ({ index: s.index, action: s.action, reward: s.reward })),
        gateLog: n.gateLog,
        endReason: n.endReason ?? null,
        dropReason: n.dropReason ?? null,
        outcome: n.outcome ?? null,
        ...(n.noise ? { noise: n.noise } : {}),
      })),
    })),
  };
}
