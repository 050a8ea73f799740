import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { isRehearsalError } from "../../src/core/index.ts";
import { DATABASE_FILE, openSqliteStore, STORE_ERROR_CODES } from "../../src/store/index.ts";
import { newRun, newTrajectory, step } from "../../src/testing/store-conformance/fixtures.ts";
import { createTempDirs } from "./temp-dirs.ts";

/* Batched step commits of the SQLite store, seen from a second connection (what a crash would leave). */

const temp = createTempDirs("sqlite-batch");
afterAll(() => temp.cleanup());

function open(options: { batchSteps?: number; batchMs?: number } = {}) {
  const dir = temp.make();
  const store = openSqliteStore({ dir, batchSteps: 3, batchMs: 1e9, ...options });
  store.createRun(newRun("r1"));
  store.startTrajectory(newTrajectory("t1"));
  store.listTrajectories("r1"); // a read commits the waiting start
  const other = new Database(join(dir, DATABASE_FILE), { readonly: true });
  const committed = () => other.prepare("SELECT COUNT(*) FROM steps").pluck().get() as number;
  const status = () => other.prepare("SELECT status FROM trajectories WHERE id = 't1'").pluck().get();
  return { dir, store, other, committed, status };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isRehearsalError(error) ? error.code : String(error);
  }
  return undefined;
}

describe("sqlite store step batches", () => {
  it("commits steps in whole batches of batchSteps, and before any read", () => {
    const { store, other, committed } = open();
    store.appendStep("t1", step(0));
    store.appendStep("t1", step(1));
    expect(committed()).toBe(0);
    store.appendStep("t1", step(2));
    expect(committed()).toBe(3);
    store.appendStep("t1", step(3));
    expect(committed()).toBe(3);
    expect(store.getTrajectory("t1")?.steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(committed()).toBe(4);
    store.close();
    other.close();
  });

  it("an end waits in the batch and commits with its trajectory's last steps, and close commits what waits", () => {
    const { dir, store, other, committed, status } = open();
    store.appendStep("t1", step(0));
    store.appendStep("t1", step(1));
    store.finishTrajectory("t1", { status: "complete", endedAtMs: 9 });
    // The end waits with the last steps: a killed process would leave t1 running with no steps.
    expect([committed(), status()]).toEqual([0, "running"]);
    store.startTrajectory(newTrajectory("t2", { episodeIndex: 1 }));
    store.appendStep("t2", step(0));
    // The batch is due (3 steps): t1's steps and end commit together, with t2's start and first step.
    expect([committed(), status()]).toEqual([3, "complete"]);
    store.appendStep("t2", step(1));
    expect(committed()).toBe(3);
    store.close();
    expect(committed()).toBe(4);
    other.close();
    const reopened = openSqliteStore({ dir });
    expect(reopened.getTrajectory("t2")?.status).toBe("running");
    expect(reopened.getTrajectory("t2")?.steps).toHaveLength(2);
    reopened.close();
  });

  it("commits a start with the trajectory's first batch of steps, or with its end", () => {
    const { dir, store, other, status } = open();
    const raw = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const row = (id: string) =>
      raw.prepare("SELECT status, ended_at_ms FROM trajectories WHERE id = ?").get(id) as
        | { status: string; ended_at_ms: number | null }
        | undefined;
    const steps = (id: string) =>
      raw.prepare("SELECT COUNT(*) FROM steps WHERE trajectory_id = ?").pluck().get(id) as number;
    store.finishTrajectory("t1", { status: "complete", endedAtMs: 1 });
    expect(status()).toBe("running"); // the end waits in the batch
    store.listRuns(); // a read commits it
    expect(status()).toBe("complete");
    // A waiting start is checked when it is made: a duplicate id or an unknown run throws at once.
    store.startTrajectory(newTrajectory("t2", { episodeIndex: 1 }));
    expect(codeOf(() => store.startTrajectory(newTrajectory("t2")))).toBe(STORE_ERROR_CODES.duplicateId);
    expect(codeOf(() => store.startTrajectory(newTrajectory("t1")))).toBe(STORE_ERROR_CODES.duplicateId);
    expect(codeOf(() => store.startTrajectory(newTrajectory("t9", { runId: "nope" })))).toBe(
      STORE_ERROR_CODES.unknownRun,
    );
    store.appendStep("t2", step(0));
    store.appendStep("t2", step(1));
    // Nothing of t2 is in the file yet: a killed process would leave no trace of it.
    expect([row("t2"), steps("t2")]).toEqual([undefined, 0]);
    store.appendStep("t2", step(2));
    // The first batch commits the start with it: running, with whole batches of steps.
    expect([row("t2"), steps("t2")]).toEqual([{ status: "running", ended_at_ms: null }, 3]);
    // A short episode commits whole, start to end, in one transaction.
    store.startTrajectory(newTrajectory("t3", { episodeIndex: 2 }));
    store.appendStep("t3", step(0));
    expect(row("t3")).toBeUndefined();
    store.finishTrajectory("t3", { status: "complete", endedAtMs: 5 });
    expect(row("t3")).toBeUndefined();
    store.listRuns();
    expect([row("t3"), steps("t3")]).toEqual([{ status: "complete", ended_at_ms: 5 }, 1]);
    expect(codeOf(() => store.finishTrajectory("t3", { status: "complete", endedAtMs: 6 }))).toBe(
      STORE_ERROR_CODES.trajectoryFinished,
    );
    store.close();
    raw.close();
    other.close();
  });

  it("checks the protocol on waiting steps when they are appended", () => {
    const { store, other } = open();
    store.appendStep("t1", step(0));
    expect(codeOf(() => store.appendStep("t1", step(0)))).toBe(STORE_ERROR_CODES.stepOutOfOrder);
    expect(codeOf(() => store.appendStep("t1", step(2)))).toBe(STORE_ERROR_CODES.stepOutOfOrder);
    expect(codeOf(() => store.appendStep("nope", step(0)))).toBe(STORE_ERROR_CODES.unknownTrajectory);
    store.appendStep("t1", step(1));
    store.finishTrajectory("t1", { status: "aborted", endedAtMs: 3 });
    expect(codeOf(() => store.appendStep("t1", step(2)))).toBe(STORE_ERROR_CODES.trajectoryFinished);
    expect(store.getTrajectory("t1")?.steps).toHaveLength(2);
    store.close();
    other.close();
  });

  it("batchMs 0 and batchSteps 1 commit every step on its own; batchMs 0 every end too", () => {
    for (const options of [{ batchMs: 0 }, { batchSteps: 1 }]) {
      const { store, other, committed, status } = open(options);
      store.appendStep("t1", step(0));
      expect(committed()).toBe(1);
      store.appendStep("t1", step(1));
      expect(committed()).toBe(2);
      store.finishTrajectory("t1", { status: "complete", endedAtMs: 3 });
      expect(status()).toBe(options.batchMs === 0 ? "complete" : "running");
      store.close();
      other.close();
    }
  });

  it("drops waiting steps that can never commit (another connection finished their trajectory)", () => {
    const { dir, store, other, committed } = open();
    store.appendStep("t1", step(0));
    const writer = new Database(join(dir, DATABASE_FILE));
    writer.prepare("UPDATE trajectories SET status = 'aborted', ended_at_ms = 1 WHERE id = 't1'").run();
    writer.close();
    store.appendStep("t1", step(1));
    expect(codeOf(() => store.appendStep("t1", step(2)))).toBe(STORE_ERROR_CODES.trajectoryFinished);
    expect(committed()).toBe(0);
    // The store goes on: nothing is left waiting that would fail every later call.
    store.startTrajectory(newTrajectory("t2", { episodeIndex: 1 }));
    expect(store.listTrajectories("r1").map((h) => [h.id, h.stepCount])).toEqual([
      ["t1", 0],
      ["t2", 0],
    ]);
    store.close();
    other.close();
  });

  it("refuses invalid batch options with a UserError naming them", () => {
    for (const options of [{ batchSteps: 0 }, { batchSteps: 1.5 }, { batchMs: -1 }]) {
      let error: unknown;
      try {
        openSqliteStore({ dir: temp.make(), ...options });
      } catch (e) {
        error = e;
      }
      expect(isRehearsalError(error) && error.code).toBe("store.bad_options");
      expect((error as Error).message).toMatch(/batchSteps must be a positive integer/);
    }
  });
});
