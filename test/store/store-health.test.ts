import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type Action, createRuntime, type Policy } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import { DATABASE_FILE, openSqliteStore, type RunStore, STORE_ERROR_CODES } from "../../src/store/index.ts";
import { classifyFailure, StoreError } from "../../src/store/store-errors.ts";
import { immutableStoreFiles } from "./immutable-files.ts";
import { createTempDirs } from "./temp-dirs.ts";
import { mountTmpfs } from "./tmpfs.ts";

const temp = createTempDirs("health");
afterAll(() => temp.cleanup());

function storeErrorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error("expected a StoreError, nothing was thrown");
}

const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const newRun = (id: string) => ({ id, kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 1 });

const left: Action = { type: "move", direction: "left" };
/** Walks into the wall, with a long raw text so that steps take room; `onStep` runs before each. */
function walker(onStep: (stepIndex: number) => void = () => {}): Policy {
  return {
    name: "walker",
    async propose(ctx) {
      onStep(ctx.stepIndex);
      return { candidates: [{ action: left, raw: `left ${"x".repeat(3000)}` }] };
    },
  };
}

async function playInto(store: RunStore, policy: Policy, episodes = 50): Promise<unknown> {
  const env = createFrozenLakeEnvironment({ slippery: false, suite: { randomMaps: { count: 0 } } });
  store.createRun(newRun("run"));
  try {
    await runEpisodes(
      { env, policy, runtime: createRuntime({ seed: "s" }), store },
      { runId: "run", tasks: [env.suite.get("4x4")], episodes, seed: "s", temperature: 1 },
    );
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("store errors on open", () => {
  it("a damaged database is a store.corrupt StoreError naming the fix, not an internal error", () => {
    const dir = temp.make();
    const store = openSqliteStore({ dir });
    for (let i = 0; i < 20; i++) store.createRun({ ...newRun(`r${i}`), config: { pad: "y".repeat(4000) } });
    store.close();
    const fd = openSync(join(dir, DATABASE_FILE), "r+");
    writeSync(fd, new Uint8Array(4096).fill(0xab), 0, 4096, 4096); // page 2: the runs table
    closeSync(fd);
    const error = storeErrorOf(() => {
      const s = openSqliteStore({ dir });
      try {
        s.listRuns();
      } finally {
        s.close();
      }
    });
    expect(error.code).toBe(STORE_ERROR_CODES.corrupt);
    expect(error.category).toBe("user");
    expect(error.message).toMatch(/damaged.*Fix: restore .* backup/s);
  });

  it("a foreign SQLite file with its own runs table is refused and left byte for byte unchanged", () => {
    for (const table of ["runs (id TEXT PRIMARY KEY, owner TEXT)", "unrelated (x INTEGER)"]) {
      const dir = temp.make();
      const path = join(dir, DATABASE_FILE);
      const db = new Database(path);
      db.exec(`CREATE TABLE ${table}`);
      db.close();
      const before = digest(path);
      const error = storeErrorOf(() => openSqliteStore({ dir }));
      expect(error.code).toBe(STORE_ERROR_CODES.foreignDatabase);
      expect(error.category).toBe("user");
      expect(error.message).toMatch(/did not create.*left unchanged.*Fix: pass another --store/s);
      expect(digest(path)).toBe(before);
      expect(existsSync(`${path}-wal`)).toBe(false);
    }
  });

  it("reads SQLite's disk-full result code as store.disk_full", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (x TEXT)");
    db.pragma("max_page_count = 3");
    let failure: unknown;
    try {
      for (let i = 0; i < 100; i++) db.prepare("INSERT INTO t VALUES (?)").run("z".repeat(2000));
    } catch (error) {
      failure = error;
    }
    db.close();
    expect((failure as { code?: string }).code).toBe("SQLITE_FULL");
    expect(classifyFailure(failure)).toBe("diskFull");
    expect(classifyFailure(Object.assign(new Error("no space"), { code: "ENOSPC" }))).toBe("diskFull");
  });
});

describe("store health during a run", () => {
  it("a store deleted mid-run stops the run with store.vanished (exit 3), not a silent 'complete'", async () => {
    const parent = temp.make();
    const dir = join(parent, "store");
    const store = openSqliteStore({ dir });
    const error = await playInto(
      store,
      walker((i) => {
        if (i === 3) rmSync(dir, { recursive: true, force: true });
      }),
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe(STORE_ERROR_CODES.vanished);
    expect((error as StoreError).category).toBe("environment");
    expect((error as StoreError).message).toMatch(/deleted or moved.*Fix: keep the store directory/s);
    expect(() => store.close()).toThrow(/deleted or moved/);
  });

  it("a store deleted after the last write makes close() fail", () => {
    const dir = join(temp.make(), "store");
    const store = openSqliteStore({ dir });
    store.createRun(newRun("r"));
    rmSync(dir, { recursive: true, force: true });
    expect(storeErrorOf(() => store.close()).code).toBe(STORE_ERROR_CODES.vanished);
  });

  it("a store made read-only mid-run (immutable files: even root cannot write) stops the run with a typed store error", async (ctx) => {
    const dir = join(temp.make(), "store");
    // Every step commits on its own, so that the steps before the switch are on disk when it comes.
    const store = openSqliteStore({ dir, batchSteps: 1 });
    const { chattr, unavailable } = immutableStoreFiles(dir);
    const why = unavailable();
    if (why !== undefined) {
      store.close();
      return ctx.skip(why);
    }
    try {
      const error = await playInto(
        store,
        walker((i) => {
          if (i === 3) chattr("+i");
        }),
      );
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe(STORE_ERROR_CODES.readOnly);
      expect((error as StoreError).message).toMatch(
        /read-only.*Fix: make the directory and its files writable/s,
      );
    } finally {
      chattr("-i");
    }
    // What was recorded before the store turned read-only is still there.
    store.close();
    const reopened = openSqliteStore({ dir });
    const first = reopened.listTrajectories("run")[0];
    expect(first?.id).toBeDefined();
    expect(reopened.getTrajectory(first?.id as string)?.steps.length).toBeGreaterThanOrEqual(3);
    reopened.close();
  });

  it("a full disk is store.disk_full (exit 3); the episode is aborted, the run can be marked failed", async (ctx) => {
    const fs = mountTmpfs(4096);
    if ("skip" in fs) return ctx.skip(fs.skip);
    try {
      const dir = join(fs.dir, "store");
      const store = openSqliteStore({ dir });
      // Fill the disk but for a little room, then play until the steps no longer fit.
      try {
        writeFileSync(join(fs.dir, "filler"), new Uint8Array(4096 * 1024));
      } catch {
        // ENOSPC: the filler took all there was.
      }
      rmSync(join(fs.dir, "filler"), { force: true });
      writeFileSync(join(fs.dir, "filler"), new Uint8Array(1900 * 1024));
      const error = await playInto(store, walker());
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe(STORE_ERROR_CODES.diskFull);
      expect((error as StoreError).category).toBe("environment");
      expect((error as StoreError).message).toMatch(/disk is full.*Fix: free space/s);
      store.updateRun("run", { status: "failed", updatedAtMs: 2 });
      store.close();
      rmSync(join(fs.dir, "filler"), { force: true });
      const reopened = openSqliteStore({ dir });
      const headers = reopened.listTrajectories("run");
      expect(headers.length).toBeGreaterThan(0);
      expect(headers.filter((h) => h.status === "running")).toEqual([]);
      expect(headers.at(-1)?.status).toBe("aborted");
      expect(headers.at(-1)?.error?.code).toBe(STORE_ERROR_CODES.diskFull);
      expect(reopened.getRun("run")?.status).toBe("failed");
      reopened.close();
    } finally {
      fs.unmount();
    }
  });
});

describe("read-only stores", () => {
  function seed(dir: string): void {
    const store = openSqliteStore({ dir });
    store.createRun(newRun("r1"));
    store.close();
  }

  it("readOnly: true lists without writing a byte, and writes are store.read_only", () => {
    const dir = temp.make();
    seed(dir);
    const path = join(dir, DATABASE_FILE);
    const before = digest(path);
    const store = openSqliteStore({ dir, readOnly: true });
    expect(store.readOnly).toBe(true);
    expect(store.listRuns().map((r) => r.id)).toEqual(["r1"]);
    const error = storeErrorOf(() => store.createRun(newRun("r2")));
    expect(error.code).toBe(STORE_ERROR_CODES.readOnly);
    expect(error.message).toMatch(/read-only.*Fix: make the directory .* writable/s);
    store.close();
    expect(digest(path)).toBe(before);
  });

  it("a store on a read-only mount opens read-only by itself and can be listed", (ctx) => {
    const fs = mountTmpfs(4096);
    if ("skip" in fs) return ctx.skip(fs.skip);
    try {
      const dir = join(fs.dir, "store");
      seed(dir);
      fs.remountReadOnly();
      const store = openSqliteStore({ dir });
      expect(store.readOnly).toBe(true);
      expect(store.listRuns().map((r) => r.id)).toEqual(["r1"]);
      expect(storeErrorOf(() => store.updateRun("r1", { updatedAtMs: 3 })).code).toBe(
        STORE_ERROR_CODES.readOnly,
      );
      store.close();
    } finally {
      fs.unmount();
    }
  });
});
