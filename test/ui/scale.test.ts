import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { runPage } from "../../src/ui/pages/run-page.ts";
import { taskPage } from "../../src/ui/pages/task-page.ts";
import { trajectoryPage } from "../../src/ui/pages/trajectory-page.ts";
import { MAX_DRAWN_NODES, nodePage, treePage } from "../../src/ui/pages/tree-page.ts";
import type { UiContext } from "../../src/ui/ui-context.ts";
import { LARGE_STORE, writeLargeStore } from "./large-store-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-ui-scale-"));

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
  const { longId } = LARGE_STORE;

  beforeAll(() => {
    writeLargeStore(dir, MAX_DRAWN_NODES + 1001);
    const reader = openSqliteStore({ dir, readOnly: true });
    expect(reader.listTrajectories("r1").reduce((sum, t) => sum + t.stepCount, 0)).toBe(LARGE_STORE.steps);
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
