import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Image,
  isRehearsalError,
  type Observation,
  SCHEMA_VERSION,
  type StepRecord,
  sha256Hex,
  type Task,
} from "../core/index.ts";
import {
  type NewRun,
  type NewTrajectory,
  type RunStore,
  STORE_ERROR_CODES,
  type TreeNodeRecord,
  type TreeRecord,
} from "../store/index.ts";

/**
 * The run store conformance suite. Every RunStore implementation runs it:
 *   describeStoreConformance("sqlite", () => openSqliteStore({ dir: freshTempDir() }))
 * The factory returns a fresh, empty store for each test; the suite closes it afterwards.
 */
export function describeStoreConformance(name: string, factory: () => RunStore): void {
  describe(`store conformance: ${name}`, () => {
    let store: RunStore;
    beforeEach(() => {
      store = factory();
    });
    afterEach(() => {
      store.close();
    });

    describe("runs", () => {
      it("creates a run as running with an empty summary and reads it back", () => {
        const created = store.createRun(newRun("r1", { config: { a: [1, { b: null }], c: "x" } }));
        expect(created).toEqual({
          ...newRun("r1", { config: { a: [1, { b: null }], c: "x" } }),
          status: "running",
          updatedAtMs: 1000,
          summary: {},
        });
        expect(store.getRun("r1")).toEqual(created);
        expect(store.getRun("nope")).toBeUndefined();
      });

      it("rejects a duplicate run id and an invalid run", () => {
        store.createRun(newRun("r1"));
        expectStoreError(() => store.createRun(newRun("r1")), STORE_ERROR_CODES.duplicateId);
        expectStoreError(
          () => store.createRun({ ...newRun("r2"), createdAtMs: Number.NaN }),
          STORE_ERROR_CODES.invalidArgument,
        );
        expect(store.getRun("r2")).toBeUndefined();
      });

      it("updates status and summary; a summary replaces the old one", () => {
        store.createRun(newRun("r1"));
        store.updateRun("r1", { summary: { episodes: 3, nested: { ok: true } }, updatedAtMs: 2000 });
        expect(store.getRun("r1")).toMatchObject({ status: "running", updatedAtMs: 2000 });
        store.updateRun("r1", { status: "complete", summary: { episodes: 4 }, updatedAtMs: 3000 });
        expect(store.getRun("r1")).toMatchObject({ status: "complete", summary: { episodes: 4 } });
        store.updateRun("r1", { status: "failed", updatedAtMs: 4000 });
        expect(store.getRun("r1")).toMatchObject({
          status: "failed",
          summary: { episodes: 4 },
          updatedAtMs: 4000,
        });
        expectStoreError(() => store.updateRun("nope", { updatedAtMs: 1 }), STORE_ERROR_CODES.unknownRun);
      });

      it("lists runs newest first, ties by id descending, with kind filter and limit", () => {
        store.createRun(newRun("a", { createdAtMs: 10, kind: "search" }));
        store.createRun(newRun("b", { createdAtMs: 30, kind: "eval" }));
        store.createRun(newRun("c", { createdAtMs: 20, kind: "search" }));
        store.createRun(newRun("d", { createdAtMs: 20, kind: "eval" }));
        expect(store.listRuns().map((r) => r.id)).toEqual(["b", "d", "c", "a"]);
        expect(store.listRuns({ kind: "search" }).map((r) => r.id)).toEqual(["c", "a"]);
        expect(store.listRuns({ limit: 2 }).map((r) => r.id)).toEqual(["b", "d"]);
        expect(store.listRuns({ kind: "eval", limit: 1 }).map((r) => r.id)).toEqual(["b"]);
        expect(store.listRuns({ limit: 0 })).toEqual([]);
        expect(store.listRuns({ kind: "none" })).toEqual([]);
        expectStoreError(() => store.listRuns({ limit: -1 }), STORE_ERROR_CODES.invalidArgument);
      });
    });

    describe("tasks", () => {
      it("keeps tasks per run in first-insertion order; putting an id again replaces it in place", () => {
        store.createRun(newRun("r1"));
        store.createRun(newRun("r2"));
        store.putTask("r1", task("t-b"));
        store.putTask("r1", task("t-a"));
        store.putTask("r2", task("t-c"));
        store.putTask("r1", { ...task("t-b"), instruction: "changed" });
        expect(store.listTasks("r1")).toEqual([{ ...task("t-b"), instruction: "changed" }, task("t-a")]);
        expect(store.listTasks("r2")).toEqual([task("t-c")]);
        expect(store.listTasks("unknown")).toEqual([]);
      });

      it("rejects a task for an unknown run", () => {
        expectStoreError(() => store.putTask("nope", task("t")), STORE_ERROR_CODES.unknownRun);
      });
    });

    describe("trajectories", () => {
      beforeEach(() => {
        store.createRun(newRun("r1"));
      });

      it("stores steps in order and marks the trajectory complete only when finished", () => {
        store.startTrajectory(newTrajectory("t1", { meta: { intended: 3 } }));
        store.appendStep("t1", step(0));
        store.appendStep("t1", step(1, { action: null, parseError: { code: "parse", message: "bad" } }));
        const running = store.getTrajectory("t1");
        expect(running).toMatchObject({ status: "running", meta: { intended: 3 } });
        expect(running?.endedAtMs).toBeUndefined();
        expect(running?.steps.map((s) => s.index)).toEqual([0, 1]);

        store.appendStep("t1", step(2, { terminated: true, reward: 1 }));
        const outcome = { reward: 1, success: true, reason: "reached the goal", metrics: { steps: 3 } };
        store.finishTrajectory("t1", {
          status: "complete",
          endedAtMs: 5000,
          outcome,
          finalObservation: { text: "final" },
        });
        expect(store.getTrajectory("t1")).toEqual({
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
        expect(store.getTrajectory("nope")).toBeUndefined();
      });

      it("records infra failures and aborts with their error info", () => {
        store.startTrajectory(newTrajectory("t1"));
        store.appendStep("t1", step(0));
        const error = { code: "env.browser_crashed", category: "environment", message: "Chromium exited" };
        store.finishTrajectory("t1", { status: "infra_failed", endedAtMs: 2000, error });
        store.startTrajectory(newTrajectory("t2", { episodeIndex: 1 }));
        store.finishTrajectory("t2", { status: "aborted", endedAtMs: 2100 });
        const failed = store.getTrajectory("t1");
        expect(failed).toMatchObject({ status: "infra_failed", error, endedAtMs: 2000 });
        expect(failed?.outcome).toBeUndefined();
        expect(store.getTrajectory("t2")).toMatchObject({ status: "aborted", steps: [], meta: {} });
      });

      it("lists headers in episode order with step counts and filters", () => {
        store.createRun(newRun("r2"));
        store.startTrajectory(newTrajectory("t-c", { episodeIndex: 1, taskId: "a" }));
        store.startTrajectory(newTrajectory("t-b", { episodeIndex: 0, taskId: "b" }));
        store.startTrajectory(newTrajectory("t-a", { episodeIndex: 1, taskId: "b" }));
        store.startTrajectory(newTrajectory("t-x", { runId: "r2" }));
        store.appendStep("t-c", step(0));
        store.appendStep("t-c", step(1));
        store.finishTrajectory("t-c", { status: "complete", endedAtMs: 9 });
        const headers = store.listTrajectories("r1");
        expect(headers.map((h) => h.id)).toEqual(["t-b", "t-a", "t-c"]);
        const header = headers[2];
        expect(header).toMatchObject({ id: "t-c", status: "complete", stepCount: 2, endedAtMs: 9 });
        expect(header).not.toHaveProperty("steps");
        expect(header).not.toHaveProperty("finalObservation");
        expect(headers[0]?.stepCount).toBe(0);
        expect(store.listTrajectories("r1", { taskId: "b" }).map((h) => h.id)).toEqual(["t-b", "t-a"]);
        expect(store.listTrajectories("r1", { status: "complete" }).map((h) => h.id)).toEqual(["t-c"]);
        expect(store.listTrajectories("r1", { taskId: "b", status: "running" }).map((h) => h.id)).toEqual([
          "t-b",
          "t-a",
        ]);
        expect(store.listTrajectories("r2").map((h) => h.id)).toEqual(["t-x"]);
        expect(store.listTrajectories("none")).toEqual([]);
      });

      it("iterates full trajectories lazily in episode order, across pages, while writing", () => {
        for (let i = 0; i < 70; i++) {
          const id = `t-${String(i).padStart(3, "0")}`;
          store.startTrajectory(newTrajectory(id, { episodeIndex: i % 35, taskId: i % 2 ? "odd" : "even" }));
          store.appendStep(id, step(0));
          if (i % 3 === 0) store.finishTrajectory(id, { status: "complete", endedAtMs: 1 });
        }
        const expected = store.listTrajectories("r1").map((h) => h.id);
        const iterator = store.iterateTrajectories("r1");
        const seen: string[] = [];
        for (const t of iterator) {
          seen.push(t.id);
          expect(t.steps).toHaveLength(1);
          // Writing while iterating is allowed.
          if (t.status === "running") store.appendStep(t.id, step(1));
        }
        expect(seen).toEqual(expected);
        expect(store.listTrajectories("r1", { status: "running" }).every((h) => h.stepCount === 2)).toBe(
          true,
        );
        const filtered = [...store.iterateTrajectories("r1", { taskId: "odd", status: "complete" })];
        expect(filtered.map((t) => t.id)).toEqual(
          store.listTrajectories("r1", { taskId: "odd", status: "complete" }).map((h) => h.id),
        );
        expect(filtered.length).toBeGreaterThan(0);
        expect([...store.iterateTrajectories("none")]).toEqual([]);
      });

      it("rejects protocol violations with typed errors and leaves the trajectory unchanged", () => {
        expectStoreError(
          () => store.startTrajectory(newTrajectory("t0", { runId: "nope" })),
          STORE_ERROR_CODES.unknownRun,
        );
        store.startTrajectory(newTrajectory("t1"));
        expectStoreError(() => store.startTrajectory(newTrajectory("t1")), STORE_ERROR_CODES.duplicateId);
        expectStoreError(() => store.appendStep("nope", step(0)), STORE_ERROR_CODES.unknownTrajectory);
        expectStoreError(() => store.appendStep("t1", step(1)), STORE_ERROR_CODES.stepOutOfOrder);
        store.appendStep("t1", step(0));
        expectStoreError(() => store.appendStep("t1", step(0)), STORE_ERROR_CODES.stepOutOfOrder);
        expectStoreError(
          () => store.appendStep("t1", step(1, { reward: Number.NaN })),
          STORE_ERROR_CODES.invalidArgument,
        );
        expectStoreError(
          () => store.finishTrajectory("t1", { status: "running" as "complete", endedAtMs: 1 }),
          STORE_ERROR_CODES.invalidArgument,
        );
        expectStoreError(
          () => store.finishTrajectory("nope", { status: "complete", endedAtMs: 1 }),
          STORE_ERROR_CODES.unknownTrajectory,
        );
        store.finishTrajectory("t1", { status: "complete", endedAtMs: 2 });
        expectStoreError(() => store.appendStep("t1", step(1)), STORE_ERROR_CODES.trajectoryFinished);
        expectStoreError(
          () => store.finishTrajectory("t1", { status: "aborted", endedAtMs: 3 }),
          STORE_ERROR_CODES.trajectoryFinished,
        );
        expect(store.getTrajectory("t1")).toMatchObject({
          status: "complete",
          endedAtMs: 2,
          steps: [step(0)],
        });
        expect(store.getTrajectory("t0")).toBeUndefined();
      });
    });

    describe("artefacts", () => {
      it("stores bytes by content hash, once, and returns fresh copies", () => {
        const bytes = new Uint8Array([1, 2, 3, 4, 5]);
        const ref = store.putArtefact(bytes, "image/png");
        expect(ref).toEqual({ sha256: sha256Hex(bytes), mime: "image/png", size: 5 });
        expect(store.putArtefact(new Uint8Array([1, 2, 3, 4, 5]), "image/png")).toEqual(ref);
        const other = store.putArtefact(new Uint8Array([9]), "application/octet-stream");
        expect(other.sha256).not.toBe(ref.sha256);
        bytes[0] = 99;
        const read = store.getArtefact(ref.sha256);
        expect(read).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
        if (read) read[1] = 42;
        expect(store.getArtefact(ref.sha256)).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
        expect(store.getArtefact(other.sha256)).toEqual(new Uint8Array([9]));
        expect(store.getArtefact("0".repeat(64))).toBeUndefined();
        expect(store.getArtefact("../../etc/passwd")).toBeUndefined();
      });

      it("moves screenshot bytes of steps and final observations to artefacts", () => {
        store.createRun(newRun("r1"));
        store.startTrajectory(newTrajectory("t1"));
        const a = image([1, 2, 3]);
        const b = image([4, 5, 6, 7]);
        const first = step(0, { observation: { text: "o0", screenshot: a } });
        store.appendStep("t1", first);
        store.appendStep("t1", step(1, { observation: { text: "o1", screenshot: image([1, 2, 3]) } }));
        store.finishTrajectory("t1", {
          status: "complete",
          endedAtMs: 3,
          finalObservation: { text: "end", screenshot: b },
        });
        expect(first.observation.screenshot?.bytes).toEqual(new Uint8Array([1, 2, 3]));
        const t = store.getTrajectory("t1");
        const { bytes: _a, ...refA } = a;
        const { bytes: _b, ...refB } = b;
        expect(t?.steps[0]?.observation.screenshot).toEqual(refA);
        expect(t?.steps[1]?.observation.screenshot).toEqual(refA);
        expect(t?.finalObservation?.screenshot).toEqual(refB);
        expect(store.getArtefact(a.sha256)).toEqual(new Uint8Array([1, 2, 3]));
        expect(store.getArtefact(b.sha256)).toEqual(new Uint8Array([4, 5, 6, 7]));
        expect(store.putArtefact(new Uint8Array([1, 2, 3]), "image/png")).toEqual({
          sha256: a.sha256,
          mime: "image/png",
          size: 3,
        });
      });

      it("rejects a screenshot whose sha256 is not the hash of its bytes", () => {
        store.createRun(newRun("r1"));
        store.startTrajectory(newTrajectory("t1"));
        const bad = { ...image([1]), sha256: "a".repeat(64) };
        expectStoreError(
          () => store.appendStep("t1", step(0, { observation: { text: "x", screenshot: bad } })),
          STORE_ERROR_CODES.screenshotHashMismatch,
        );
        expect(store.getTrajectory("t1")?.steps).toEqual([]);
      });
    });

    describe("trees", () => {
      beforeEach(() => {
        store.createRun(newRun("r1"));
      });

      it("upserts trees and lists them per run in first-insertion order", () => {
        store.createRun(newRun("r2"));
        store.putTree(tree("tree-b"));
        store.putTree(tree("tree-a"));
        store.putTree({ ...tree("tree-c"), runId: "r2" });
        store.putTree({ ...tree("tree-b"), status: "complete", data: { leaves: 4 } });
        expect(store.getTree("tree-b")).toEqual({
          ...tree("tree-b"),
          status: "complete",
          data: { leaves: 4 },
        });
        expect(store.listTrees("r1").map((t) => t.id)).toEqual(["tree-b", "tree-a"]);
        expect(store.listTrees("r2").map((t) => t.id)).toEqual(["tree-c"]);
        expect(store.getTree("nope")).toBeUndefined();
        expectStoreError(() => store.putTree({ ...tree("x"), runId: "nope" }), STORE_ERROR_CODES.unknownRun);
      });

      it("upserts nodes, lists them by depth then insertion, and filters by status and parent", () => {
        store.putTree(tree("T"));
        store.putTree(tree("U"));
        store.putNodes([node("T", "root", null, 0), node("T", "c2", "root", 1), node("T", "c1", "root", 1)]);
        store.putNodes([node("T", "g1", "c1", 2, "leaf"), node("U", "root", null, 0, "pending")]);
        store.putNodes([{ ...node("T", "c2", "root", 1), status: "pruned", data: { reason: "dup" } }]);
        const all = store.listNodes("T");
        expect(all.map((n) => n.id)).toEqual(["root", "c2", "c1", "g1"]);
        expect(all[1]).toEqual({ ...node("T", "c2", "root", 1), status: "pruned", data: { reason: "dup" } });
        expect(store.listNodes("T", { status: "alive" }).map((n) => n.id)).toEqual(["root", "c1"]);
        expect(store.listNodes("T", { parentId: "root" }).map((n) => n.id)).toEqual(["c2", "c1"]);
        expect(store.listNodes("T", { parentId: null }).map((n) => n.id)).toEqual(["root"]);
        expect(store.listNodes("T", { parentId: "root", status: "pruned" }).map((n) => n.id)).toEqual(["c2"]);
        expect(store.listNodes("U")).toEqual([node("U", "root", null, 0, "pending")]);
        expect(store.listNodes("none")).toEqual([]);
      });

      it("rejects a batch with a node of an unknown tree as a whole", () => {
        store.putTree(tree("T"));
        expectStoreError(
          () => store.putNodes([node("T", "ok", null, 0), node("nope", "bad", null, 0)]),
          STORE_ERROR_CODES.unknownTree,
        );
        expectStoreError(
          () => store.putNodes([{ ...node("T", "neg", null, 0), depth: -1 }]),
          STORE_ERROR_CODES.invalidArgument,
        );
        expect(store.listNodes("T")).toEqual([]);
      });
    });

    describe("isolation", () => {
      it("copies records on write and on read", () => {
        const run = newRun("r1", { config: { nested: { x: 1 } } });
        const created = store.createRun(run);
        (run.config as { nested: { x: number } }).nested.x = 2;
        (created.config as { nested: { x: number } }).nested.x = 3;
        (store.getRun("r1")?.summary as Record<string, unknown>).hacked = true;
        expect(store.getRun("r1")).toMatchObject({ config: { nested: { x: 1 } }, summary: {} });

        const t = task("t");
        store.putTask("r1", t);
        t.tags.push("mutated");
        store.listTasks("r1")[0]?.tags.push("mutated");
        expect(store.listTasks("r1")[0]?.tags).toEqual(["a"]);

        const meta = { list: [1] };
        store.startTrajectory(newTrajectory("t1", { meta }));
        meta.list.push(2);
        const s = step(0);
        store.appendStep("t1", s);
        s.info.extra = 1;
        s.observation.text = "mutated";
        const read = store.getTrajectory("t1");
        if (read?.steps[0]) read.steps[0].info.extra = 2;
        read?.steps.pop();
        expect(store.getTrajectory("t1")).toMatchObject({ meta: { list: [1] }, steps: [step(0)] });

        store.putTree(tree("T"));
        const n = node("T", "n", null, 0);
        store.putNodes([n]);
        n.data.changed = true;
        const listed = store.listNodes("T")[0];
        if (listed) listed.data.changed = true;
        expect(store.listNodes("T")[0]?.data).toEqual({ score: 0 });
        const gotTree = store.getTree("T");
        if (gotTree) gotTree.data.changed = true;
        expect(store.getTree("T")?.data).toEqual({ budget: 10 });
      });
    });

    describe("close", () => {
      it("is idempotent and makes every other call fail", () => {
        store.close();
        store.close();
        expectStoreError(() => store.listRuns(), STORE_ERROR_CODES.closed);
        expectStoreError(() => store.createRun(newRun("r")), STORE_ERROR_CODES.closed);
        expectStoreError(() => [...store.iterateTrajectories("r")], STORE_ERROR_CODES.closed);
      });
    });
  });
}

function expectStoreError(fn: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected an error with code ${code}`).toBeDefined();
  expect(isRehearsalError(thrown), `expected a RehearsalError, got ${String(thrown)}`).toBe(true);
  expect((thrown as { code: string }).code).toBe(code);
  expect((thrown as Error).message.length).toBeGreaterThan(20);
}

function newRun(id: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    id,
    kind: "run",
    seed: "s1",
    config: { policy: "random" },
    codeVersion: "0.1.0",
    createdAtMs: 1000,
    ...overrides,
  };
}

function task(id: string): Task {
  return {
    id,
    instruction: `do ${id}`,
    family: "frozenlake",
    seed: 0,
    split: "train",
    verifier: { kind: "goal" },
    tags: ["a"],
  };
}

function newTrajectory(id: string, overrides: Partial<NewTrajectory> = {}): NewTrajectory {
  return {
    id,
    runId: "r1",
    taskId: "task-1",
    episodeIndex: 0,
    seed: 7,
    policy: "random",
    startedAtMs: 1000,
    ...overrides,
  };
}

function step(index: number, overrides: Partial<StepRecord> = {}): StepRecord {
  const observation: Observation = {
    text: `state ${index}`,
    stateKey: `s${index}`,
    legalActions: [
      { type: "move", direction: "left" },
      { type: "move", direction: "right" },
    ],
    data: { row: index, col: 0 },
  };
  return {
    index,
    observation,
    action: { type: "move", direction: "right" },
    raw: "right",
    reward: 0,
    terminated: false,
    truncated: false,
    info: { slipped: index % 2 === 0 },
    timeMs: 3,
    ...overrides,
  };
}

function image(bytes: number[]): Image & { bytes: Uint8Array } {
  const data = new Uint8Array(bytes);
  return { mime: "image/png", sha256: sha256Hex(data), width: 4, height: 3, bytes: data };
}

function tree(id: string): TreeRecord {
  return { id, runId: "r1", taskId: "task-1", seed: 3, status: "running", data: { budget: 10 } };
}

function node(
  treeId: string,
  id: string,
  parentId: string | null,
  depth: number,
  status: TreeNodeRecord["status"] = "alive",
): TreeNodeRecord {
  return { id, treeId, parentId, depth, status, data: { score: depth } };
}
