import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { UserError } from "../core/index.ts";
import { migrate } from "./migrations.ts";

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
}

export const DATABASE_FILE = "rehearsal.db";

function connect(path: string, options: SqliteStoreOptions): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw new UserError(
      "store.open_failed",
      `opening the run store ${path} failed: ${(error as Error).message}. Check that the directory is writable, or choose another one.`,
      { cause: error },
    );
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
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
    if (error instanceof UserError) throw error;
    throw new UserError(
      "store.open_failed",
      `opening the run store ${path} failed: ${(error as Error).message}. The file is not a Rehearsal database or is damaged; choose another directory or restore it from a backup.`,
      { cause: error },
    );
  }
}

export function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

/**
 * Creates `dir` when missing, opens `dir/rehearsal.db` with the store's pragmas and migrates it to the
 * newest schema. Failures are UserErrors naming the path and the fix.
 */
export function openDatabase(options: SqliteStoreOptions): {
  db: Database.Database;
  path: string;
  version: number;
} {
  const path = join(options.dir, DATABASE_FILE);
  try {
    mkdirSync(options.dir, { recursive: true });
  } catch (error) {
    throw new UserError(
      "store.open_failed",
      `creating the run store directory ${options.dir} failed: ${(error as Error).message}. Choose a writable directory.`,
      { cause: error },
    );
  }
  const db = connect(path, options);
  try {
    return { db, path, version: migrate(db, path) };
  } catch (error) {
    db.close();
    throw error;
  }
}
