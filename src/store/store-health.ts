import { accessSync, constants, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { classifyFailure, storeError } from "./store-errors.ts";

/** Space kept free beside the database, given back on a full disk to record how the run ended. */
export const RESERVE_FILE = "rehearsal.reserve";
export const RESERVE_BYTES = 1 << 20;

/**
 * The SQLite store's checks on itself. At every write boundary it checks that it may write and that its
 * database file is still the one it opened (deleting or moving the store directory mid-run would
 * otherwise go on silently into an unlinked file). Failures of the disk, the file system or the file
 * become typed StoreErrors. On a full disk it deletes its reserve file, so that the writes that record
 * the failure (the trajectory aborted, the run failed) still find room.
 */
export interface StoreHealth {
  /** Before a write: throws `store.read_only` or `store.vanished`. */
  beforeWrite(operation: string): void;
  /** Runs `fn`; a failure of the store comes out as its StoreError, anything else unchanged. */
  guard<T>(operation: string, fn: () => T): T;
  /** What `guard` throws for `error`: its StoreError for a failure of the store, else `error` itself. */
  failure(operation: string, error: unknown): unknown;
  /** At close, after writes: throws `store.vanished` when the database file is gone. */
  afterClose(): void;
}

interface FileIdentity {
  dev: number;
  ino: number;
}

/** Whether this process may write `path` now (an immutable file refuses even root). */
export function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function identity(path: string): FileIdentity | undefined {
  const s = statSync(path, { throwIfNoEntry: false });
  return s && { dev: s.dev, ino: s.ino };
}

/** Creates the reserve file when it is missing or short; on a disk too full for it, goes without. */
function ensureReserve(path: string): void {
  if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) >= RESERVE_BYTES) return;
  try {
    writeFileSync(path, new Uint8Array(RESERVE_BYTES));
  } catch {
    rmSync(path, { force: true });
  }
}

export function createStoreHealth(options: { dir: string; path: string; readOnly: boolean }): StoreHealth {
  const { path, readOnly } = options;
  const reserve = join(options.dir, RESERVE_FILE);
  const opened = identity(path);
  let wrote = false;
  if (!readOnly) ensureReserve(reserve);

  function releaseReserve(): void {
    try {
      rmSync(reserve, { force: true });
    } catch {
      // Nothing to give back (the directory is gone or not writable); the error says what happened.
    }
  }

  function moved(): boolean {
    const now = identity(path);
    return now === undefined || opened === undefined || now.dev !== opened.dev || now.ino !== opened.ino;
  }

  function failure(operation: string, error: unknown): unknown {
    let kind = classifyFailure(error);
    if (kind === undefined) return error;
    if (kind === "diskFull") releaseReserve();
    else if (kind !== "corrupt" && kind !== "notADatabase" && moved()) kind = "vanished";
    // SQLite reports a write the file system refused as an I/O error; name the real cause.
    if (kind === "ioError" && !writable(path)) kind = "readOnly";
    return storeError(kind, operation, path, error);
  }

  return {
    beforeWrite(operation) {
      if (readOnly) throw storeError("readOnly", operation, path);
      if (moved()) throw storeError("vanished", operation, path);
      wrote = true;
    },
    guard(operation, fn) {
      try {
        return fn();
      } catch (error) {
        throw failure(operation, error);
      }
    },
    failure,
    afterClose() {
      if (wrote && moved()) throw storeError("vanished", "close", path);
    },
  };
}
