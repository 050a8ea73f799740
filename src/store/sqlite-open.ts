import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { isRehearsalError, UserError } from "../core/index.ts";
import { STORE_ERROR_CODES } from "./contract.ts";
import { LATEST_SCHEMA_VERSION, migrate, SCHEMA_VERSION_TABLE, schemaVersion, tooNew } from "./migrations.ts";
import { classifyFailure, StoreError, storeError } from "./store-errors.ts";
import { writable } from "./store-health.ts";

export interface SqliteStoreOptions {
  /** The project directory: holds `rehearsal.db` and `artefacts/`. Created when missing. */
  dir: string;
  /**
   * `normal` (default): in WAL mode every transaction is atomic and survives a crash of the process
   * (SIGKILL, OOM) because committed pages are already in the WAL; an OS crash or power loss may roll
   * back the last few commits, never half of one, and never corrupts the database. Artefact files are
   * fsynced before the rows that reference them commit, so every stored reference finds its file.
   * `full`: also fsync the WAL on every commit (durable against power loss; a lot slower per step).
   */
  synchronous?: "normal" | "full";
  /** How long a writer waits for a lock held by another connection (default 5000). */
  busyTimeoutMs?: number;
  /**
   * Appended steps are committed in batches: one transaction when `batchSteps` steps are waiting
   * (default 256; or 256 KiB of their text, so that a retry after a full disk fits the reserve file), or
   * when the oldest waiting entry is `batchMs` old (default 200): checked at every call, and by an unref'd
   * timer when no further call comes (a slow policy after an episode ended); always before any other
   * operation but a start, an append or an end; and on close. `batchSteps: 1` commits every step on its
   * own; `batchMs: 0` commits at every call (per-step and per-episode commits). A batch commits all at
   * once or not at all: a killed process never leaves part of one, and never marks an episode complete
   * that was not.
   *
   * A trajectory's start and its end join the batch (both checked at once: a duplicate id, an unknown
   * run or trajectory, finishing twice or appending after an end throw from the call that did it; an end
   * whose trajectory another connection finished meanwhile is refused at the commit, like steps are). A
   * start commits with the trajectory's first batch of steps, or with its end (then as one row with the
   * final status); an end commits in the same transaction as the trajectory's last steps (or in a later
   * one), so several short episodes share one commit. Why: a FrozenLake episode (about 30 steps, well
   * under a millisecond) paid for a commit of its own at its end, and before that one for its start: the
   * end's commit was the largest single cost of the SQLite store (~24 % of a 1000-episode run's CPU time
   * in a profile of `runEpisodes`). What it gives up: a killed process loses the waiting entries, i.e.
   * the episodes ended in the last `batchMs` (or fewer than a batch of steps ago) as well as the waiting
   * steps of running ones; a resumed run plays them again. Another connection (or process: `rehearsal ui`,
   * a reader of the file) sees a start or an end only once the writer commits, at the latest about
   * `batchMs` later. This connection's own reads see them at once (a read commits the batch first).
   * A timer commit that fails leaves the batch as it was; the next call (or `close`) commits it again and
   * throws the failure (a typed StoreError for a failure of the store) to its caller.
   * Tested: `test/store/sqlite-batch*.test.ts`, `test/store/crash*.test.ts`.
   */
  batchSteps?: number;
  batchMs?: number;
  /**
   * Open without writing anything (no directory, migration or WAL): every write throws a `store.read_only`
   * StoreError. A store whose directory or file is not writable opens this way by itself.
   */
  readOnly?: boolean;
}

export const DATABASE_FILE = "rehearsal.db";

export interface OpenedDatabase {
  db: Database.Database;
  path: string;
  version: number;
  readOnly: boolean;
}

/** A typed store error for a failure while opening, or a UserError naming the path and the fix. */
function openFailure(path: string, error: unknown): Error {
  if (isRehearsalError(error)) return error;
  const kind = classifyFailure(error);
  if (kind !== undefined) return storeError(kind, "opening", path, error);
  return new UserError(
    "store.open_failed",
    `opening the run store ${path} failed: ${(error as Error).message}. Check that the directory is readable, or choose another one.`,
    { cause: error },
  );
}

/**
 * Refuses, without changing a byte, a SQLite file that Rehearsal did not create: one with tables but
 * no `schema_version` table. A file with no tables (new or empty) is Rehearsal's to set up.
 */
function checkOwnDatabase(db: Database.Database, path: string): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  if (tables.length === 0 || tables.includes(SCHEMA_VERSION_TABLE)) return;
  const shown = tables.length > 8 ? `${tables.slice(0, 8).join(", ")}, ...` : tables.join(", ");
  throw new StoreError(
    STORE_ERROR_CODES.foreignDatabase,
    "user",
    `opening the run store ${path} failed: it is a SQLite database that Rehearsal did not create (tables ${shown}; no ${SCHEMA_VERSION_TABLE} table). It was left unchanged. Fix: pass another --store directory, or move that file away.`,
    { details: { path, tables } },
  );
}

function connect(path: string, options: SqliteStoreOptions, readOnly: boolean): Database.Database {
  let db: Database.Database;
  try {
    db = readOnly ? new Database(path, { readonly: true, fileMustExist: true }) : new Database(path);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    checkOwnDatabase(db, path);
    if (readOnly) return db;
    const mode = db.pragma("journal_mode = WAL", { simple: true });
    if (mode !== "wal") {
      throw new UserError(
        "store.no_wal",
        `the run store ${path} cannot use WAL mode (journal_mode is ${String(mode)}); put the store directory on a local file system.`,
      );
    }
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    return db;
  } catch (error) {
    db.close();
    throw openFailure(path, error);
  }
}

export function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

/** Whether the store must open read-only: asked for, or an existing store that cannot be written. */
function mustOpenReadOnly(options: SqliteStoreOptions, path: string): boolean {
  if (options.readOnly === true) return true;
  if (!existsSync(path)) return false;
  return !writable(options.dir) || !writable(path);
}

function openReadOnly(options: SqliteStoreOptions, path: string): OpenedDatabase {
  if (!existsSync(path)) {
    throw new UserError(
      "store.open_failed",
      `opening the run store ${path} read-only failed: there is no database file. Pass the --store directory that holds ${DATABASE_FILE}.`,
    );
  }
  const db = connect(path, options, true);
  try {
    const version = schemaVersion(db);
    if (version > LATEST_SCHEMA_VERSION) throw tooNew(path, version, LATEST_SCHEMA_VERSION);
    if (version < LATEST_SCHEMA_VERSION) {
      throw new StoreError(
        STORE_ERROR_CODES.needsMigration,
        "user",
        `opening the run store ${path} read-only failed: it has schema version ${version} and this Rehearsal reads version ${LATEST_SCHEMA_VERSION}. Fix: open it once with write access (any command, e.g. \`rehearsal runs list\`) so that it is migrated.`,
        { details: { path, found: version, supported: LATEST_SCHEMA_VERSION } },
      );
    }
    return { db, path, version, readOnly: true };
  } catch (error) {
    db.close();
    throw openFailure(path, error);
  }
}

/**
 * Opens `dir/rehearsal.db`: creates `dir` when missing, refuses foreign and damaged files unchanged,
 * sets the store's pragmas and migrates it to the newest schema; or, when asked or when the store
 * cannot be written, opens it read-only without writing. Failures are typed errors naming the path
 * and the fix.
 */
export function openDatabase(options: SqliteStoreOptions): OpenedDatabase {
  const path = join(options.dir, DATABASE_FILE);
  if (mustOpenReadOnly(options, path)) return openReadOnly(options, path);
  try {
    mkdirSync(options.dir, { recursive: true });
  } catch (error) {
    throw new UserError(
      "store.open_failed",
      `creating the run store directory ${options.dir} failed: ${(error as Error).message}. Choose a writable directory.`,
      { cause: error },
    );
  }
  const db = connect(path, options, false);
  try {
    return { db, path, version: migrate(db, path), readOnly: false };
  } catch (error) {
    db.close();
    throw openFailure(path, error);
  }
}

/** Runs an insert, turning key conflicts into the caller's protocol errors. */
export function insert(
  run: () => void,
  conflicts: { primaryKey?: () => Error; foreignKey?: () => Error },
): void {
  try {
    run();
  } catch (error) {
    const code = sqliteCode(error);
    if (code === "SQLITE_CONSTRAINT_PRIMARYKEY" && conflicts.primaryKey) throw conflicts.primaryKey();
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY" && conflicts.foreignKey) throw conflicts.foreignKey();
    throw error;
  }
}

/**
 * On close, switches the file back to rollback-journal mode when no other connection has it open, so
 * that the store can later be opened read-only where the WAL's shared-memory file cannot be created
 * (a read-only mount or directory). The next writer switches it to WAL again. Best effort: with other
 * connections open the file stays in WAL mode until the last one closes.
 */
export function leaveWalMode(db: Database.Database): void {
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("journal_mode = DELETE");
  } catch {
    // Another connection holds the database; it leaves WAL mode when it closes.
  }
}
