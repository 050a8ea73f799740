import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { sha256Hex, UserError } from "../../src/core/index.ts";
import {
  DATABASE_FILE,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  openSqliteStore,
  openStore,
  STORE_ERROR_CODES,
} from "../../src/store/index.ts";
import { migrate } from "../../src/store/migrations.ts";
import { StoreError } from "../../src/store/store-errors.ts";
import { describeStoreConformance } from "../../src/testing/index.ts";
import { createTempDirs } from "./temp-dirs.ts";

const temp = createTempDirs("sqlite");
afterAll(() => temp.cleanup());

describeStoreConformance("sqlite", () => openSqliteStore({ dir: temp.make() }));

function storeErrorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error("expected a StoreError, nothing was thrown");
}

function raw(dir: string): Database.Database {
  return new Database(join(dir, DATABASE_FILE));
}

describe("sqlite store", () => {
  it("opens in WAL mode with foreign keys on and the latest schema version", () => {
    const dir = temp.make();
    const store = openSqliteStore({ dir });
    expect(store.kind).toBe("sqlite");
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    const db = raw(dir);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    store.close();
    const versions = db.prepare("SELECT version, name FROM schema_version ORDER BY version").all();
    expect(versions).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    db.close();
  });

  it("preserves data across reopening, and reopening does not migrate again", () => {
    const dir = temp.make();
    const first = openStore({ dir });
    first.createRun({ id: "r1", kind: "run", seed: "s", config: { x: 1 }, codeVersion: "v", createdAtMs: 5 });
    first.startTrajectory({
      id: "t1",
      runId: "r1",
      taskId: "task",
      episodeIndex: 0,
      seed: 1,
      policy: "p",
      startedAtMs: 5,
    });
    const shot = new Uint8Array([7, 7, 7]);
    first.appendStep("t1", {
      index: 0,
      observation: { text: "o", screenshot: { mime: "image/png", sha256: sha256Hex(shot), bytes: shot } },
      action: { type: "wait", ms: 10 },
      raw: "wait",
      reward: 0.5,
      terminated: true,
      truncated: false,
      info: {},
      timeMs: 1,
    });
    first.finishTrajectory("t1", { status: "complete", endedAtMs: 9 });
    const before = first.getTrajectory("t1");
    first.close();

    const second = openSqliteStore({ dir });
    expect(second.getRun("r1")).toMatchObject({ id: "r1", config: { x: 1 } });
    expect(second.getTrajectory("t1")).toEqual(before);
    expect(second.getArtefact(sha256Hex(shot))).toEqual(shot);
    second.close();

    const artefact = join(dir, "artefacts", sha256Hex(shot).slice(0, 2), `${sha256Hex(shot)}.png`);
    expect(existsSync(artefact)).toBe(true);
    expect(new Uint8Array(readFileSync(artefact))).toEqual(shot);
    const db = raw(dir);
    expect(db.prepare("SELECT COUNT(*) FROM schema_version").pluck().get()).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT data FROM steps").pluck().get()).not.toContain('"bytes"');
    db.close();
  });

  it("migrates an older database to the newest version", () => {
    const dir = temp.make();
    openSqliteStore({ dir }).close();
    const db = raw(dir);
    const extra = [
      ...MIGRATIONS,
      { version: MIGRATIONS.length + 1, name: "test-extra", sql: "CREATE TABLE extra (x INTEGER)" },
    ];
    expect(migrate(db, "test.db", extra)).toBe(extra.length);
    expect(migrate(db, "test.db", extra)).toBe(extra.length);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").pluck().get()).toBe("extra");
    db.close();
  });

  it("migrates a database without a schema (version 0) on open", () => {
    const dir = temp.make();
    const db = raw(dir);
    db.pragma("user_version = 0"); // an empty SQLite file: no tables
    db.close();
    const store = openSqliteStore({ dir });
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(store.listRuns()).toEqual([]);
    store.close();
  });

  it("lets two stores on the same directory see each other's commits", () => {
    const dir = temp.make();
    const writer = openSqliteStore({ dir });
    const reader = openSqliteStore({ dir });
    writer.createRun({ id: "r", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 1 });
    writer.startTrajectory({
      id: "t",
      runId: "r",
      taskId: "k",
      episodeIndex: 0,
      seed: 0,
      policy: "p",
      startedAtMs: 1,
    });
    // A start waits in the writer's step batch: the reader sees it once the writer commits (a read).
    expect(reader.listTrajectories("r")).toEqual([]);
    expect(writer.listTrajectories("r").map((h) => h.id)).toEqual(["t"]);
    expect(reader.listTrajectories("r").map((h) => h.id)).toEqual(["t"]);
    // An end waits in the batch too: the reader sees it once the writer commits.
    writer.finishTrajectory("t", { status: "aborted", endedAtMs: 2 });
    expect(reader.getTrajectory("t")?.status).toBe("running");
    expect(writer.getTrajectory("t")?.status).toBe("aborted");
    expect(reader.getTrajectory("t")?.status).toBe("aborted");
    writer.close();
    reader.close();
  });

  it("rejects a database written by a newer version with a UserError naming the fix", () => {
    const dir = temp.make();
    openSqliteStore({ dir }).close();
    const db = raw(dir);
    db.prepare("INSERT INTO schema_version (version, name) VALUES (?, ?)").run(
      LATEST_SCHEMA_VERSION + 1,
      "future",
    );
    db.close();
    let thrown: unknown;
    try {
      openSqliteStore({ dir });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UserError);
    expect((thrown as UserError).code).toBe(STORE_ERROR_CODES.schemaTooNew);
    expect((thrown as Error).message).toMatch(/newer Rehearsal.*Upgrade Rehearsal/s);
  });

  it("refuses a file that is not a database", () => {
    const dir = temp.make();
    openSqliteStore({ dir }).close();
    const path = join(dir, DATABASE_FILE);
    for (const suffix of ["-wal", "-shm"]) {
      if (existsSync(path + suffix)) throw new Error("the WAL should be checkpointed on close");
    }
    const junk = temp.make();
    writeFileSync(join(junk, DATABASE_FILE), "this is not a database, just text that is long enough ...");
    expect(storeErrorOf(() => openSqliteStore({ dir: junk }))).toMatchObject({
      code: STORE_ERROR_CODES.notADatabase,
      category: "user",
    });
  });

  it("honours synchronous = full when asked", () => {
    const store = openSqliteStore({ dir: temp.make(), synchronous: "full" });
    store.createRun({ id: "r", kind: "run", seed: "s", config: null, codeVersion: "v", createdAtMs: 1 });
    expect(store.getRun("r")?.config).toBeNull();
    store.close();
  });
});
