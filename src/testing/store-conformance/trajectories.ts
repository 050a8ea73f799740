import { beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../core/index.ts";
import { type RunStore, STORE_ERROR_CODES } from "../../store/index.ts";
import { expectStoreError, newRun, newTrajectory, step } from "./fixtures.ts";

/** Store conformance: trajectories. `store()` is the fresh store of the running test. */
export function describeTrajectories(store: () => RunStore): void {
  describe("trajectories", () => {
    beforeEach(() => {
      store().createRun(newRun("r1"));
    });

    it("stores steps in order and marks the trajectory complete only when finished", () => {
      store().startTrajectory(newTrajectory("t1", { meta: { intended: 3 } }));
      store().appendStep("t1", step(0));
      store().appendStep("t1", step(1, { action: null, parseError: { code: "parse", message: "bad" } }));
      const running = store().getTrajectory("t1");
      expect(running).toMatchObject({ status: "running", meta: { intended: 3 } });
      expect(running?.endedAtMs).toBeUndefined();
      expect(running?.steps.map((s) => s.index)).toEqual([0, 1]);

      store().appendStep("t1", step(2, { terminated: true, reward: 1 }));
      const outcome = { reward: 1, success: true, reason: "reached the goal", metrics: { steps: 3 } };
      store().finishTrajectory("t1", {
        status: "complete",
        endedAtMs: 5000,
        outcome,
        finalObservation: { text: "final" },
      });
      expect(store().getTrajectory("t1")).toEqual({
        schemaVersion: SCHEMA_VERSION,
        id: "t1",
        runId: "r1",
        taskId: "task-1",
        episodeIndex: 0,
        seed: 7,
        policy: "random",
        status: "complete",
        steps: [
          step(0),
          step(1, { action: null, parseError: { code: "parse", message: "bad" } }),
          step(2, { terminated: true, reward: 1 }),
        ],
        finalObservation: { text: "final" },
        outcome,
        startedAtMs: 1000,
        endedAtMs: 5000,
        meta: { intended: 3 },
      });
      expect(store().getTrajectory("nope")).toBeUndefined();
    });

    it("records infra failures and aborts with their error info", () => {
      store().startTrajectory(newTrajectory("t1"));
      store().appendStep("t1", step(0));
      const error = { code: "env.browser_crashed", category: "environment", message: "Chromium exited" };
      store().finishTrajectory("t1", { status: "infra_failed", endedAtMs: 2000, error });
      store().startTrajectory(newTrajectory("t2", { episodeIndex: 1 }));
      store().finishTrajectory("t2", { status: "aborted", endedAtMs: 2100 });
      const failed = store().getTrajectory("t1");
      expect(failed).toMatchObject({ status: "infra_failed", error, endedAtMs: 2000 });
      expect(failed?.outcome).toBeUndefined();
      expect(store().getTrajectory("t2")).toMatchObject({ status: "aborted", steps: [], meta: {} });
    });

    it("lists headers in episode order with step counts and filters", () => {
      store().createRun(newRun("r2"));
      store().startTrajectory(newTrajectory("t-c", { episodeIndex: 1, taskId: "a" }));
      store().startTrajectory(newTrajectory("t-b", { episodeIndex: 0, taskId: "b" }));
      store().startTrajectory(newTrajectory("t-a", { episodeIndex: 1, taskId: "b" }));
      store().startTrajectory(newTrajectory("t-x", { runId: "r2" }));
      store().appendStep("t-c", step(0));
      store().appendStep("t-c", step(1));
      store().finishTrajectory("t-c", { status: "complete", endedAtMs: 9 });
      const headers = store().listTrajectories("r1");
      expect(headers.map((h) => h.id)).toEqual(["t-b", "t-a", "t-c"]);
      const header = headers[2];
      expect(header).toMatchObject({ id: "t-c", status: "complete", stepCount: 2, endedAtMs: 9 });
      expect(header).not.toHaveProperty("steps");
      expect(header).not.toHaveProperty("finalObservation");
      expect(headers[0]?.stepCount).toBe(0);
      expect(
        store()
          .listTrajectories("r1", { taskId: "b" })
          .map((h) => h.id),
      ).toEqual(["t-b", "t-a"]);
      expect(
        store()
          .listTrajectories("r1", { status: "complete" })
          .map((h) => h.id),
      ).toEqual(["t-c"]);
      expect(
        store()
          .listTrajectories("r1", { taskId: "b", status: "running" })
          .map((h) => h.id),
      ).toEqual(["t-b", "t-a"]);
      expect(
        store()
          .listTrajectories("r2")
          .map((h) => h.id),
      ).toEqual(["t-x"]);
      expect(store().listTrajectories("none")).toEqual([]);
    });

    it("iterates full trajectories lazily in episode order, across pages, while writing", () => {
      for (let i = 0; i < 70; i++) {
        const id = `t-${String(i).padStart(3, "0")}`;
        store().startTrajectory(newTrajectory(id, { episodeIndex: i % 35, taskId: i % 2 ? "odd" : "even" }));
        store().appendStep(id, step(0));
        if (i % 3 === 0) store().finishTrajectory(id, { status: "complete", endedAtMs: 1 });
      }
      const expected = store()
        .listTrajectories("r1")
        .map((h) => h.id);
      const iterator = store().iterateTrajectories("r1");
      const seen: string[] = [];
      for (const t of iterator) {
        seen.push(t.id);
        expect(t.steps).toHaveLength(1);
        // Writing while iterating is allowed.
        if (t.status === "running") store().appendStep(t.id, step(1));
      }
      expect(seen).toEqual(expected);
      expect(
        store()
          .listTrajectories("r1", { status: "running" })
          .every((h) => h.stepCount === 2),
      ).toBe(true);
      const filtered = [...store().iterateTrajectories("r1", { taskId: "odd", status: "complete" })];
      expect(filtered.map((t) => t.id)).toEqual(
        store()
          .listTrajectories("r1", { taskId: "odd", status: "complete" })
          .map((h) => h.id),
      );
      expect(filtered.length).toBeGreaterThan(0);
      expect([...store().iterateTrajectories("none")]).toEqual([]);
    });

    it("rejects protocol violations with typed errors and leaves the trajectory unchanged", () => {
      expectStoreError(
        () => store().startTrajectory(newTrajectory("t0", { runId: "nope" })),
        STORE_ERROR_CODES.unknownRun,
      );
      store().startTrajectory(newTrajectory("t1"));
      expectStoreError(() => store().startTrajectory(newTrajectory("t1")), STORE_ERROR_CODES.duplicateId);
      expectStoreError(() => store().appendStep("nope", step(0)), STORE_ERROR_CODES.unknownTrajectory);
      expectStoreError(() => store().appendStep("t1", step(1)), STORE_ERROR_CODES.stepOutOfOrder);
      store().appendStep("t1", step(0));
      expectStoreError(() => store().appendStep("t1", step(0)), STORE_ERROR_CODES.stepOutOfOrder);
      expectStoreError(
        () => store().appendStep("t1", step(1, { reward: Number.NaN })),
        STORE_ERROR_CODES.invalidArgument,
      );
      expectStoreError(
        () => store().finishTrajectory("t1", { status: "running" as "complete", endedAtMs: 1 }),
        STORE_ERROR_CODES.invalidArgument,
      );
      expectStoreError(
        () => store().finishTrajectory("nope", { status: "complete", endedAtMs: 1 }),
        STORE_ERROR_CODES.unknownTrajectory,
      );
      store().finishTrajectory("t1", { status: "complete", endedAtMs: 2 });
      expectStoreError(() => store().appendStep("t1", step(1)), STORE_ERROR_CODES.trajectoryFinished);
      expectStoreError(
        () => store().finishTrajectory("t1", { status: "aborted", endedAtMs: 3 }),
        STORE_ERROR_CODES.trajectoryFinished,
      );
      expect(store().getTrajectory("t1")).toMatchObject({
        status: "complete",
        endedAtMs: 2,
        steps: [step(0)],
      });
      expect(store().getTrajectory("t0")).toBeUndefined();
    });
  });
}
