import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StepRecord } from "../../src/core/index.ts";
import { openSqliteStore, type RunStore, type TreeNodeRecord } from "../../src/store/index.ts";
import { runPage } from "../../src/ui/pages/run-page.ts";
import { taskPage } from "../../src/ui/pages/task-page.ts";
import { trajectoryPage } from "../../src/ui/pages/trajectory-page.ts";
import { MAX_DRAWN_NODES, nodePage, treePage } from "../../src/ui/pages/tree-page.ts";
import type { UiContext } from "../../src/ui/ui-context.ts";

const STEPS = 100_000;
const dir = mkdtempSync(join(tmpdir(), "rehearsal-ui-scale-"));

function step(index: number): StepRecord {
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

/** The store, counting the rows every read hands back (and which reads were called). */
function counting(store: RunStore) {
  const stats = { rows: 0, calls: [] as string[] };
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        stats.calls.push(String(name));
        const out = value.apply(target, args);
        stats.rows += Array.isArray(out) ? out.length : out === undefined ? 0 : 1;
        return out;
      };
    },
  });
  return { store: proxy, stats, reset: () => Object.assign(stats, { rows: 0, calls: [] }) };
}

describe("the dashboard on a store with 100,000 steps", () => {
  let ctx: UiContext;
  let counted: ReturnType<typeof counting>;
  const longId = "t-long";

  beforeAll(() => {
    const writer = openSqliteStore({ dir, batchSteps: 4096 });
    writer.createRun({ id: "r1", kind: "run", seed: "0", config: {}, codeVersion: "x", createdAtMs: 0 });
    writer.putTask("r1", {
      id: "task",
      instruction: "go",
      family: "frozenlake",
      seed: 0,
      split: "train",
      verifier: { kind: "goal" },
      tags: [],
    });
    // One long trajectory of 60,000 steps, then 400 of 100 steps: 100,000 steps in all.
    writer.startTrajectory({
      id: longId,
      runId: "r1",
      taskId: "task",
      episodeIndex: 0,
      seed: 0,
      policy: "random",
      startedAtMs: 0,
    });
    for (let i = 0; i < 60_000; i++) writer.appendStep(longId, step(i));
    writer.finishTrajectory(longId, {
      status: "complete",
      endedAtMs: 1,
      outcome: { reward: 0, success: false, reason: "fell", metrics: {} },
    });
    for (let t = 0; t < 400; t++) {
      const id = `t${t}`;
      writer.startTrajectory({
        id,
        runId: "r1",
        taskId: "task",
        episodeIndex: t + 1,
        seed: t,
        policy: "random",
        startedAtMs: 0,
      });
      for (let i = 0; i < 100; i++) writer.appendStep(id, step(i));
      writer.finishTrajectory(id, {
        status: "complete",
        endedAtMs: 1,
        outcome: { reward: 1, success: true, reason: "goal", metrics: {} },
      });
    }
    writer.putTree({ id: "big", runId: "r1", taskId: "task", seed: 0, status: "complete", data: {} });
    const nodes: TreeNodeRecord[] = [
      { id: "n0", treeId: "big", parentId: null, depth: 0, status: "alive", data: { steps: [] } },
    ];
    for (let i = 1; i <= MAX_DRAWN_NODES + 1000; i++)
      nodes.push({
        id: `n${i}`,
        treeId: "big",
        parentId: `n${Math.floor((i - 1) / 2)}`,
        depth: Math.floor(Math.log2(i + 1)),
        status: i > 3000 ? "leaf" : "alive",
        data: { steps: [step(0)], outcome: { reward: 0, success: i % 7 === 0, reason: "end" } },
      });
    writer.putNodes(nodes);
    writer.close();
    const reader = openSqliteStore({ dir, readOnly: true });
    expect(reader.listTrajectories("r1").reduce((sum, t) => sum + t.stepCount, 0)).toBe(STEPS);
    counted = counting(reader);
    ctx = { store: counted.store, storeDir: dir, worldbooks: [], sklDirs: [] };
  }, 300_000);

  afterAll(() => {
    ctx?.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads one page of steps, never the whole trajectory", () => {
    counted.reset();
    const html = trajectoryPage(ctx, longId, { step: "59999" });
    expect("html" in html && html.html).toContain("step 59999 of 60000");
    expect(counted.stats.calls).not.toContain("getTrajectory");
    expect(counted.stats.calls).not.toContain("iterateTrajectories");
    expect(counted.stats.rows).toBeLessThanOrEqual(60);
    const rows = "html" in html ? (html.html.split('<table id="steps">')[1] ?? "").split("</table>")[0] : "";
    expect(rows?.match(/<tr>/g)?.length).toBe(1 + 50); // header + one page
  });

  it("lists a task's trajectories and a run's tasks page by page, with counts", () => {
    counted.reset();
    const task = taskPage(ctx, "r1", "task", { page: "3" });
    expect("html" in task && task.html).toContain("page 4 of 9 (401 rows)");
    expect(counted.stats.rows).toBeLessThanOrEqual(60);
    counted.reset();
    const run = runPage(ctx, "r1");
    expect("html" in run && run.html).toContain(">401<");
    expect(counted.stats.rows).toBeLessThanOrEqual(10);
  });

  it("lists the leaves of a tree too large to draw one page at a time, and a leaf's path by its ancestors", () => {
    counted.reset();
    const tree = treePage(ctx, "big", {});
    expect("html" in tree && tree.html).toContain("too many to draw");
    expect(counted.stats.rows).toBeLessThanOrEqual(110);
    counted.reset();
    const leaf = nodePage(ctx, "big", "n5999");
    expect("html" in leaf && leaf.html).toContain("Path from the root");
    expect(counted.stats.calls.filter((c) => c === "listNodes")).toEqual([]);
    expect(counted.stats.rows).toBeLessThanOrEqual(20);
  });
});
