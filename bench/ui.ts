// The dashboard on a large store: a SQLite store with 100,000 steps (one trajectory of 60,000 steps and
// 400 of 100) and a 6,000-node search tree, served by `rehearsal ui`'s server on 127.0.0.1; reported:
// the time to build the store and the median time over the wire of each page (20 fetches each).
// Run by bench/run.ts (`npm run bench -- ui`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StepRecord } from "../src/core/index.ts";
import { openSqliteStore, type TreeNodeRecord } from "../src/store/index.ts";
import { startUiServer } from "../src/ui/ui-server.ts";

function step(index: number): StepRecord {
  const action = { type: "move" as const, direction: "right" as const };
  const observation = { text: `state ${index}` };
  return {
    index,
    observation,
    action,
    raw: "right",
    reward: 0,
    terminated: false,
    truncated: false,
    info: {},
    timeMs: 1,
  };
}

function buildStore(dir: string): void {
  const s = openSqliteStore({ dir, batchSteps: 4096 });
  s.createRun({ id: "r1", kind: "run", seed: "0", config: {}, codeVersion: "bench", createdAtMs: 0 });
  const task = {
    id: "task",
    instruction: "go",
    family: "frozenlake",
    seed: 0,
    split: "train" as const,
    verifier: { kind: "goal" },
    tags: [],
  };
  s.putTask("r1", task);
  const outcome = { reward: 0, success: false, reason: "end", metrics: {} };
  const trajectory = (id: string, episodeIndex: number, steps: number) => {
    s.startTrajectory({
      id,
      runId: "r1",
      taskId: "task",
      episodeIndex,
      seed: 0,
      policy: "random",
      startedAtMs: 0,
    });
    for (let i = 0; i < steps; i++) s.appendStep(id, step(i));
    s.finishTrajectory(id, { status: "complete", endedAtMs: 1, outcome });
  };
  trajectory("t-long", 0, 60_000);
  for (let t = 0; t < 400; t++) trajectory(`t${t}`, t + 1, 100);
  s.putTree({ id: "big", runId: "r1", taskId: "task", seed: 0, status: "complete", data: {} });
  const nodes: TreeNodeRecord[] = [];
  for (let i = 0; i < 6000; i++) {
    const parentId = i === 0 ? null : `n${Math.floor((i - 1) / 2)}`;
    const data = { fromStep: 0, steps: [step(0)], outcome };
    nodes.push({
      id: `n${i}`,
      treeId: "big",
      parentId,
      depth: Math.floor(Math.log2(i + 1)),
      status: "leaf",
      data,
    });
  }
  s.putNodes(nodes);
  s.close();
}

export async function benchUi(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-bench-ui-"));
  try {
    const t0 = performance.now();
    buildStore(dir);
    const buildMs = performance.now() - t0;
    const server = await startUiServer({ storeDir: dir, port: 0 });
    const pages: Record<string, string> = {
      runs: "/",
      run: "/runs/r1",
      task_last_page: "/runs/r1/tasks/task?page=8",
      trajectory_last_step: "/trajectories/t-long?step=59999",
      tree: "/trees/big",
      leaf_path: "/trees/big/nodes/n5999",
    };
    const out: Record<string, number> = { store_steps: 100_000, store_build_ms: Math.round(buildMs) };
    try {
      for (const [name, path] of Object.entries(pages)) {
        const times: number[] = [];
        for (let i = 0; i < 20; i++) {
          const start = performance.now();
          const r = await fetch(server.url + path);
          await r.text();
          if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
          times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        out[`${name}_p50_ms`] = Math.round((times[10] ?? 0) * 10) / 10;
      }
    } finally {
      await server.close();
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
