import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { isRehearsalError } from "../../src/core/index.ts";
import { DATABASE_FILE, openSqliteStore, STORE_ERROR_CODES } from "../../src/store/index.ts";
import { BATCH_MAX_CHARS } from "../../src/store/step-batch.ts";
import { isProtocolError, StoreError } from "../../src/store/store-errors.ts";
import { RESERVE_BYTES } from "../../src/store/store-health.ts";
import { newRun, newTrajectory, step } from "../../src/testing/store-conformance/fixtures.ts";
import { immutableStoreFiles } from "./immutable-files.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Ends in the SQLite store's batch, and the batch timer: what a second connection (or a crash) sees.
 */

const temp = createTempDirs("sqlite-batch-ends");
afterAll(() => temp.cleanup());

function open(options: { batchSteps?: number; batchMs?: number; busyTimeoutMs?: number } = {}) {
  const dir = temp.make();
  const store = openSqliteStore({ dir, batchSteps: 10, batchMs: 1e9, ...options });
  store.createRun(newRun("r1"));
  const other = new Database(join(dir, DATABASE_FILE), { readonly: true });
  const rows = () =>
    other.prepare("SELECT id, status FROM trajectories ORDER BY id").all() as {
      id: string;
      status: string;
    }[];
  const steps = () => other.prepare("SELECT COUNT(*) FROM steps").pluck().get() as number;
  const close = () => {
    store.close();
    other.close();
  };
  return { dir, store, other, rows, steps, close };
}

/** Plays a short episode: start, `n` steps, end. */
function episode(store: ReturnType<typeof openSqliteStore>, id: string, n: number, index = 0): void {
  store.startTrajectory(newTrajectory(id, { episodeIndex: index }));
  for (let i = 0; i < n; i++) store.appendStep(id, step(i));
  store.finishTrajectory(id, { status: "complete", endedAtMs: 10 + index });
}

function errorOf(fn: () => unknown): { code: string; message: string } | undefined {
  try {
    fn();
  } catch (error) {
    if (isRehearsalError(error)) return { code: error.code, message: error.message };
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === "string" ? code : String(error), message: String(error) };
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ends in the sqlite store's batch", () => {
  it("commits several episodes' ends in one transaction with their steps, seen by another connection only then", () => {
    const { store, rows, steps, close } = open();
    episode(store, "a", 3, 0);
    episode(store, "b", 3, 1);
    episode(store, "c", 3, 2);
    // Three whole episodes wait: nothing of them is in the file.
    expect([rows(), steps()]).toEqual([[], 0]);
    store.startTrajectory(newTrajectory("d", { episodeIndex: 3 }));
    store.appendStep("d", step(0)); // the tenth step: the batch is due
    expect([rows(), steps()]).toEqual([
      [
        { id: "a", status: "complete" },
        { id: "b", status: "complete" },
        { id: "c", status: "complete" },
        { id: "d", status: "running" },
      ],
      10,
    ]);
    close();
  });

  it("an end of a trajectory started in an earlier batch is an update in the batch's transaction", () => {
    const { store, rows, steps, close } = open({ batchSteps: 2 });
    store.startTrajectory(newTrajectory("a"));
    store.appendStep("a", step(0));
    store.appendStep("a", step(1)); // commits the start and two steps
    store.appendStep("a", step(2));
    store.finishTrajectory("a", { status: "infra_failed", endedAtMs: 5 });
    expect([rows(), steps()]).toEqual([[{ id: "a", status: "running" }], 2]);
    store.getRun("r1"); // a read commits the batch first
    expect([rows(), steps()]).toEqual([[{ id: "a", status: "infra_failed" }], 3]);
    close();
  });

  it("checks the protocol while an end waits: the same errors, from the call that broke it", () => {
    const { store, close } = open();
    episode(store, "a", 2); // waits, start to end
    const waiting = {
      twice: errorOf(() => store.finishTrajectory("a", { status: "aborted", endedAtMs: 1 })),
      append: errorOf(() => store.appendStep("a", step(2))),
      unknown: errorOf(() => store.finishTrajectory("nope", { status: "aborted", endedAtMs: 1 })),
    };
    store.listRuns(); // commits
    const committed = {
      twice: errorOf(() => store.finishTrajectory("a", { status: "aborted", endedAtMs: 1 })),
      append: errorOf(() => store.appendStep("a", step(2))),
      unknown: errorOf(() => store.finishTrajectory("nope", { status: "aborted", endedAtMs: 1 })),
    };
    expect(waiting).toEqual(committed);
    expect(waiting.twice?.code).toBe(STORE_ERROR_CODES.trajectoryFinished);
    expect(waiting.append?.code).toBe(STORE_ERROR_CODES.trajectoryFinished);
    expect(waiting.unknown?.code).toBe(STORE_ERROR_CODES.unknownTrajectory);
    // Nothing of the refused calls was recorded.
    const a = store.getTrajectory("a");
    expect([a?.status, a?.steps.length]).toEqual(["complete", 2]);
    close();
  });

  it("only a refusal by the store's rules drops waiting entries at commit (a failure of another kind keeps them)", () => {
    const { dir, store, close } = open();
    const thrown = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    episode(store, "a", 1);
    const refusals = [
      thrown(() => store.finishTrajectory("a", { status: "aborted", endedAtMs: 1 })),
      thrown(() => store.appendStep("a", step(5))),
      thrown(() => store.finishTrajectory("nope", { status: "aborted", endedAtMs: 1 })),
      thrown(() => store.startTrajectory(newTrajectory("a"))),
    ];
    expect(refusals.map((e) => isProtocolError(e))).toEqual([true, true, true, true]);
    const raw = new Database(join(dir, DATABASE_FILE));
    const sqliteFailure = thrown(() => raw.prepare("SELECT * FROM no_such_table").get());
    raw.close();
    close();
    const closed = thrown(() => store.listRuns());
    expect([
      (closed as { code?: string })?.code,
      isProtocolError(closed),
      isProtocolError(sqliteFailure),
    ]).toEqual([STORE_ERROR_CODES.closed, false, false]);
  });

  it("an end whose trajectory another connection finished meanwhile is refused at commit, and dropped", () => {
    const { dir, store, rows, close } = open();
    store.startTrajectory(newTrajectory("a"));
    store.listRuns(); // commits a's start
    store.appendStep("a", step(0));
    store.finishTrajectory("a", { status: "complete", endedAtMs: 3 });
    episode(store, "b", 1, 1);
    const writer = new Database(join(dir, DATABASE_FILE));
    writer.prepare("UPDATE trajectories SET status = 'aborted', ended_at_ms = 1 WHERE id = 'a'").run();
    writer.close();
    expect(errorOf(() => store.listRuns())?.code).toBe(STORE_ERROR_CODES.trajectoryFinished);
    // a's waiting step and end can never commit: they are gone; b commits at the next call.
    expect(store.listTrajectories("r1").map((h) => [h.id, h.status, h.stepCount])).toEqual([
      ["a", "aborted", 0],
      ["b", "complete", 1],
    ]);
    expect(rows()).toEqual([
      { id: "a", status: "aborted" },
      { id: "b", status: "complete" },
    ]);
    close();
  });
});

describe("the size of a batch", () => {
  it("is due once its steps hold BATCH_MAX_CHARS of text, so a retry after a full disk fits the reserve", () => {
    const { store, steps, close } = open({ batchSteps: 1000 });
    store.startTrajectory(newTrajectory("a"));
    const raw = "x".repeat(30_000);
    const per = Math.ceil(BATCH_MAX_CHARS / raw.length); // 9 steps of a little over 30,000 characters
    for (let i = 0; i < per - 1; i++) store.appendStep("a", step(i, { raw }));
    expect(steps()).toBe(0);
    store.appendStep("a", step(per - 1, { raw }));
    expect(steps()).toBe(per);
    expect(BATCH_MAX_CHARS).toBeLessThanOrEqual(RESERVE_BYTES / 4);
    close();
  });
});

describe("the sqlite store's batch timer", () => {
  it("commits a waiting batch by itself once it is batchMs old, with no further call", async () => {
    // 100 ms: the episode's four calls must all come before the batch is due (a loaded machine can
    // pause the process for tens of milliseconds between two of them).
    const { store, rows, steps, close } = open({ batchMs: 100 });
    episode(store, "a", 2);
    expect([rows(), steps()]).toEqual([[], 0]);
    // The store's timer expires before this one (set later, longer): it has fired when this resolves.
    await sleep(500);
    expect([rows(), steps()]).toEqual([[{ id: "a", status: "complete" }], 2]);
    close();
  });

  it("a failing timer commit keeps the batch and surfaces at the next call; nothing recorded is lost", async () => {
    const { dir, store, rows, steps, close } = open({ batchMs: 20, busyTimeoutMs: 0 });
    const lock = new Database(join(dir, DATABASE_FILE));
    lock.exec("BEGIN IMMEDIATE"); // another writer holds the lock: the timer's commit is refused
    episode(store, "a", 2);
    await sleep(200);
    lock.exec("ROLLBACK");
    lock.close();
    expect([rows(), steps()]).toEqual([[], 0]);
    // The next call commits the batch again, then throws what the timer's commit hit.
    expect(errorOf(() => store.startTrajectory(newTrajectory("b")))?.code).toBe("SQLITE_BUSY");
    expect([rows(), steps()]).toEqual([[{ id: "a", status: "complete" }], 2]);
    // The store goes on.
    episode(store, "b", 1, 1);
    store.close();
    expect([rows(), steps()]).toEqual([
      [
        { id: "a", status: "complete" },
        { id: "b", status: "complete" },
      ],
      3,
    ]);
    close();
  });

  it("a timer commit refused by the file system surfaces as the typed StoreError at the next call", async (ctx) => {
    const { dir, store, rows, steps, close } = open({ batchMs: 20 });
    const { chattr, unavailable } = immutableStoreFiles(dir);
    const why = unavailable();
    if (why !== undefined) {
      close();
      return ctx.skip(why);
    }
    let failure: unknown;
    try {
      episode(store, "a", 2);
      chattr("+i");
      await sleep(200);
    } finally {
      chattr("-i");
    }
    try {
      store.appendStep("nope", step(0));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).code).toBe(STORE_ERROR_CODES.readOnly);
    expect((failure as StoreError).message).toMatch(/batchMs timer.*read-only/s);
    // Committed again before the error was thrown: episode a is whole.
    expect([rows(), steps()]).toEqual([[{ id: "a", status: "complete" }], 2]);
    close();
  });
});
