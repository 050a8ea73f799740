import { describe, expect, it } from "vitest";
import { type RunStore, STORE_ERROR_CODES } from "../../store/index.ts";
import { expectStoreError, newRun, newTrajectory, node, step, task, tree } from "./fixtures.ts";

/** Store conformance: isolation between runs and close. `store()` is the fresh store of the running test. */
export function describeIsolationAndClose(store: () => RunStore): void {
  describe("isolation", () => {
    it("copies records on write and on read", () => {
      const run = newRun("r1", { config: { nested: { x: 1 } } });
      const created = store().createRun(run);
      (run.config as { nested: { x: number } }).nested.x = 2;
      (created.config as { nested: { x: number } }).nested.x = 3;
      (store().getRun("r1")?.summary as Record<string, unknown>).hacked = true;
      expect(store().getRun("r1")).toMatchObject({ config: { nested: { x: 1 } }, summary: {} });

      const t = task("t");
      store().putTask("r1", t);
      t.tags.push("mutated");
      store().listTasks("r1")[0]?.tags.push("mutated");
      expect(store().listTasks("r1")[0]?.tags).toEqual(["a"]);

      const meta = { list: [1] };
      store().startTrajectory(newTrajectory("t1", { meta }));
      meta.list.push(2);
      const s = step(0);
      store().appendStep("t1", s);
      s.info.extra = 1;
      s.observation.text = "mutated";
      const read = store().getTrajectory("t1");
      if (read?.steps[0]) read.steps[0].info.extra = 2;
      read?.steps.pop();
      expect(store().getTrajectory("t1")).toMatchObject({ meta: { list: [1] }, steps: [step(0)] });

      store().putTree(tree("T"));
      const n = node("T", "n", null, 0);
      store().putNodes([n]);
      n.data.changed = true;
      const listed = store().listNodes("T")[0];
      if (listed) listed.data.changed = true;
      expect(store().listNodes("T")[0]?.data).toEqual({ score: 0 });
      const gotTree = store().getTree("T");
      if (gotTree) gotTree.data.changed = true;
      expect(store().getTree("T")?.data).toEqual({ budget: 10 });
    });
  });

  describe("close", () => {
    it("is idempotent and makes every other call fail", () => {
      store().close();
      store().close();
      expectStoreError(() => store().listRuns(), STORE_ERROR_CODES.closed);
      expectStoreError(() => store().createRun(newRun("r")), STORE_ERROR_CODES.closed);
      expectStoreError(() => [...store().iterateTrajectories("r")], STORE_ERROR_CODES.closed);
    });
  });
}
