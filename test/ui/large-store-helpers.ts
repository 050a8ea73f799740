import type { StepRecord } from "../../src/core/index.ts";
import { openSqliteStore, type TreeNodeRecord } from "../../src/store/index.ts";

/**
 * The large store the dashboard is tested and benchmarked on (test/ui/scale.test.ts, bench/ui.ts):
 * run `r1`, task `task`, 100,000 steps (trajectory `t-long` of 60,000, then `t0`…`t399` of 100) and a
 * binary search tree `big` whose node `nI` has parent `n⌊(I-1)/2⌋`.
 */
export const LARGE_STORE = { steps: 100_000, runId: "r1", taskId: "task", longId: "t-long", treeId: "big" };

/** A step of the large store: a move right in a numbered state. */
export function largeStoreStep(index: number): StepRecord {
  return {
    index,
    observation: { text: `state ${index}` },
    action: { type: "move", direction: "right" },
    raw: "right",
    reward: 0,
    terminated: false,
    truncated: false,
    info: {},
    timeMs: 1,
  };
}

/** Writes the large store in `dir`, its tree with `treeNodes` nodes (`n0` … `n{treeNodes-1}`). */
export function writeLargeStore(dir: string, treeNodes: number): void {
  const { runId, taskId, longId, treeId } = LARGE_STORE;
  const writer = openSqliteStore({ dir, batchSteps: 4096 });
  writer.createRun({ id: runId, kind: "run", seed: "0", config: {}, codeVersion: "x", createdAtMs: 0 });
  writer.putTask(runId, {
    id: taskId,
    instruction: "go",
    family: "frozenlake",
    seed: 0,
    split: "train",
    verifier: { kind: "goal" },
    tags: [],
  });
  const trajectory = (id: string, episodeIndex: number, steps: number, success: boolean) => {
    writer.startTrajectory({
      id,
      runId,
      taskId,
      episodeIndex,
      seed: episodeIndex,
      policy: "random",
      startedAtMs: 0,
    });
    for (let i = 0; i < steps; i++) writer.appendStep(id, largeStoreStep(i));
    const outcome = { reward: success ? 1 : 0, success, reason: success ? "goal" : "fell", metrics: {} };
    writer.finishTrajectory(id, { status: "complete", endedAtMs: 1, outcome });
  };
  // One long trajectory of 60,000 steps, then 400 of 100 steps: 100,000 steps in all.
  trajectory(longId, 0, 60_000, false);
  for (let t = 0; t < 400; t++) trajectory(`t${t}`, t + 1, 100, true);
  writer.putTree({ id: treeId, runId, taskId, seed: 0, status: "complete", data: {} });
  const nodes: TreeNodeRecord[] = [
    { id: "n0", treeId, parentId: null, depth: 0, status: "alive", data: { steps: [] } },
  ];
  for (let i = 1; i < treeNodes; i++)
    nodes.push({
      id: `n${i}`,
      treeId,
      parentId: `n${Math.floor((i - 1) / 2)}`,
      depth: Math.floor(Math.log2(i + 1)),
      status: i > 3000 ? "leaf" : "alive",
      data: { steps: [largeStoreStep(0)], outcome: { reward: 0, success: i % 7 === 0, reason: "end" } },
    });
  writer.putNodes(nodes);
  writer.close();
}
