import { describe, expect, it } from "vitest";
import { type RunStore, STORE_ERROR_CODES } from "../../store/index.ts";
import { expectStoreError, newRun, task } from "./fixtures.ts";

/** Store conformance: runs and tasks. `store()` is the fresh store of the running test. */
export function describeRunsAndTasks(store: () => RunStore): void {
  describe("runs", () => {
    it("creates a run as running with an empty summary and reads it back", () => {
      const created = store().createRun(newRun("r1", { config: { a: [1, { b: null }], c: "x" } }));
      expect(created).toEqual({
        ...newRun("r1", { config: { a: [1, { b: null }], c: "x" } }),
        status: "running",
        updatedAtMs: 1000,
        summary: {},
      });
      expect(store().getRun("r1")).toEqual(created);
      expect(store().getRun("nope")).toBeUndefined();
    });

    it("rejects a duplicate run id and an invalid run", () => {
      store().createRun(newRun("r1"));
      expectStoreError(() => store().createRun(newRun("r1")), STORE_ERROR_CODES.duplicateId);
      expectStoreError(
        () => store().createRun({ ...newRun("r2"), createdAtMs: Number.NaN }),
        STORE_ERROR_CODES.invalidArgument,
      );
      expect(store().getRun("r2")).toBeUndefined();
    });

    it("updates status and summary; a summary replaces the old one", () => {
      store().createRun(newRun("r1"));
      store().updateRun("r1", { summary: { episodes: 3, nested: { ok: true } }, updatedAtMs: 2000 });
      expect(store().getRun("r1")).toMatchObject({ status: "running", updatedAtMs: 2000 });
      store().updateRun("r1", { status: "complete", summary: { episodes: 4 }, updatedAtMs: 3000 });
      expect(store().getRun("r1")).toMatchObject({ status: "complete", summary: { episodes: 4 } });
      store().updateRun("r1", { status: "failed", updatedAtMs: 4000 });
      expect(store().getRun("r1")).toMatchObject({
        status: "failed",
        summary: { episodes: 4 },
        updatedAtMs: 4000,
      });
      expectStoreError(() => store().updateRun("nope", { updatedAtMs: 1 }), STORE_ERROR_CODES.unknownRun);
    });

    it("lists runs newest first, ties by id descending, with kind filter and limit", () => {
      store().createRun(newRun("a", { createdAtMs: 10, kind: "search" }));
      store().createRun(newRun("b", { createdAtMs: 30, kind: "eval" }));
      store().createRun(newRun("c", { createdAtMs: 20, kind: "search" }));
      store().createRun(newRun("d", { createdAtMs: 20, kind: "eval" }));
      expect(
        store()
          .listRuns()
          .map((r) => r.id),
      ).toEqual(["b", "d", "c", "a"]);
      expect(
        store()
          .listRuns({ kind: "search" })
          .map((r) => r.id),
      ).toEqual(["c", "a"]);
      expect(
        store()
          .listRuns({ limit: 2 })
          .map((r) => r.id),
      ).toEqual(["b", "d"]);
      expect(
        store()
          .listRuns({ kind: "eval", limit: 1 })
          .map((r) => r.id),
      ).toEqual(["b"]);
      expect(store().listRuns({ limit: 0 })).toEqual([]);
      expect(store().listRuns({ kind: "none" })).toEqual([]);
      expectStoreError(() => store().listRuns({ limit: -1 }), STORE_ERROR_CODES.invalidArgument);
    });
  });

  describe("tasks", () => {
    it("keeps tasks per run in first-insertion order; putting an id again replaces it in place", () => {
      store().createRun(newRun("r1"));
      store().createRun(newRun("r2"));
      store().putTask("r1", task("t-b"));
      store().putTask("r1", task("t-a"));
      store().putTask("r2", task("t-c"));
      store().putTask("r1", { ...task("t-b"), instruction: "changed" });
      expect(store().listTasks("r1")).toEqual([{ ...task("t-b"), instruction: "changed" }, task("t-a")]);
      expect(store().listTasks("r2")).toEqual([task("t-c")]);
      expect(store().listTasks("unknown")).toEqual([]);
    });

    it("rejects a task for an unknown run", () => {
      expectStoreError(() => store().putTask("nope", task("t")), STORE_ERROR_CODES.unknownRun);
    });
  });
}
