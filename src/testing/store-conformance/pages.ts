import { beforeEach, describe, expect, it } from "vitest";
import { type RunStore, STORE_ERROR_CODES } from "../../store/index.ts";
import { expectStoreError, image, newRun, newTrajectory, node, step, tree } from "./fixtures.ts";

/** Store conformance: paginated and counted reads (steps, trajectories, nodes). */
export function describePages(store: () => RunStore): void {
  describe("pages and counts", () => {
    beforeEach(() => {
      store().createRun(newRun("r1"));
    });

    it("pages a trajectory's steps by index and reads its header without the steps", () => {
      store().startTrajectory(newTrajectory("t1"));
      const shot = image([9, 8, 7]);
      for (let i = 0; i < 7; i++)
        store().appendStep("t1", step(i, i === 3 ? { observation: { text: "s", screenshot: shot } } : {}));
      const { bytes: _bytes, ...ref } = shot;
      expect(
        store()
          .listSteps("t1", { offset: 2, limit: 3 })
          .map((s) => s.index),
      ).toEqual([2, 3, 4]);
      expect(store().listSteps("t1", { offset: 3, limit: 1 })[0]?.observation.screenshot).toEqual(ref);
      expect(
        store()
          .listSteps("t1", { offset: 5, limit: 10 })
          .map((s) => s.index),
      ).toEqual([5, 6]);
      expect(store().listSteps("t1", { offset: 7, limit: 10 })).toEqual([]);
      expect(store().listSteps("nope", { offset: 0, limit: 10 })).toEqual([]);
      expect(store().listSteps("t1", { offset: 0, limit: 7 })).toEqual(store().getTrajectory("t1")?.steps);
      const header = store().getTrajectoryHeader("t1");
      expect(header).toMatchObject({ id: "t1", runId: "r1", status: "running", stepCount: 7 });
      expect(header).not.toHaveProperty("steps");
      expect(store().getTrajectoryHeader("nope")).toBeUndefined();
      expectStoreError(
        () => store().listSteps("t1", { offset: -1, limit: 2 }),
        STORE_ERROR_CODES.invalidArgument,
      );
      expectStoreError(
        () => store().listSteps("t1", { offset: 0, limit: 0 }),
        STORE_ERROR_CODES.invalidArgument,
      );
    });

    it("pages and counts trajectories in episode order, with the listing's filters", () => {
      for (let i = 0; i < 5; i++)
        store().startTrajectory(newTrajectory(`t${i}`, { episodeIndex: 4 - i, taskId: i % 2 ? "a" : "b" }));
      store().finishTrajectory("t0", { status: "complete", endedAtMs: 2000 });
      const ids = (page?: { offset: number; limit: number }, filter = {}) =>
        store()
          .listTrajectories("r1", filter, page)
          .map((t) => t.id);
      expect(ids()).toEqual(["t4", "t3", "t2", "t1", "t0"]);
      expect(ids({ offset: 1, limit: 2 })).toEqual(["t3", "t2"]);
      expect(ids({ offset: 4, limit: 2 })).toEqual(["t0"]);
      expect(ids({ offset: 0, limit: 2 }, { taskId: "b" })).toEqual(["t4", "t2"]);
      expect(store().countTrajectories("r1")).toBe(5);
      expect(store().countTrajectories("r1", { taskId: "a" })).toBe(2);
      expect(store().countTrajectories("r1", { status: "complete" })).toBe(1);
      expect(store().countTrajectories("nope")).toBe(0);
      expectStoreError(
        () => store().listTrajectories("r1", {}, { offset: 0, limit: 10_001 }),
        STORE_ERROR_CODES.invalidArgument,
      );
    });

    it("pages and counts a tree's nodes and reads one node by id", () => {
      store().putTree(tree("tr"));
      store().putNodes([
        node("tr", "root", null, 0),
        node("tr", "b", "root", 1, "leaf"),
        node("tr", "a", "root", 1),
        node("tr", "c", "a", 2, "leaf"),
      ]);
      const ids = (page: { offset: number; limit: number }, filter = {}) =>
        store()
          .listNodes("tr", filter, page)
          .map((n) => n.id);
      expect(ids({ offset: 0, limit: 10 })).toEqual(
        store()
          .listNodes("tr")
          .map((n) => n.id),
      );
      expect(ids({ offset: 1, limit: 2 })).toEqual(["b", "a"]);
      expect(ids({ offset: 0, limit: 10 }, { status: "leaf" })).toEqual(["b", "c"]);
      expect(store().countNodes("tr")).toBe(4);
      expect(store().countNodes("tr", { parentId: "root" })).toBe(2);
      expect(store().countNodes("tr", { status: "leaf" })).toBe(2);
      expect(store().getNode("tr", "c")).toEqual(node("tr", "c", "a", 2, "leaf"));
      expect(store().getNode("tr", "zz")).toBeUndefined();
      expect(store().getNode("other", "c")).toBeUndefined();
    });
  });
}
