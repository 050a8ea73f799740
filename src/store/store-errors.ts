import { z } from "zod";
import { InternalError, RehearsalError } from "../core/index.ts";
import { STORE_ERROR_CODES } from "./contract.ts";

type StoreErrorCode = (typeof STORE_ERROR_CODES)[keyof typeof STORE_ERROR_CODES];

/** A caller broke the store's protocol (unknown id, finished trajectory, ...): a bug in the caller. */
export function protocolError(
  code: StoreErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): InternalError {
  return new InternalError(code, message, { details });
}

/** The codes of the store's rules on trajectories (ids, order, life) that a batch commit re-checks. */
const PROTOCOL_CODES: ReadonlySet<string> = new Set([
  STORE_ERROR_CODES.unknownRun,
  STORE_ERROR_CODES.unknownTrajectory,
  STORE_ERROR_CODES.duplicateId,
  STORE_ERROR_CODES.trajectoryFinished,
  STORE_ERROR_CODES.stepOutOfOrder,
]);

/** Whether `error` is a `protocolError` on a trajectory (the committed rows refused a call). */
export function isProtocolError(error: unknown): boolean {
  return error instanceof InternalError && PROTOCOL_CODES.has(error.code);
}

/** An argument failed its schema. `operation` reads like `appendStep(traj-1)`. */
export function invalidArgument(operation: string, what: string, error: z.ZodError): InternalError {
  return new InternalError(
    STORE_ERROR_CODES.invalidArgument,
    `${operation}: the ${what} is invalid:\n${z.prettifyError(error)}\nFix the caller so that it passes a valid ${what} (see the schemas in src/core and src/store/contract.ts).`,
    { cause: error, details: { operation } },
  );
}

/** A stored row did not validate on the way back. */
export function corruptRow(what: string, cause: unknown): InternalError {
  const reason = cause instanceof z.ZodError ? z.prettifyError(cause) : String(cause);
  return new InternalError(
    STORE_ERROR_CODES.corruptRow,
    `reading ${what} from the run store failed validation:\n${reason}\nThe row was written by an incompatible Rehearsal version or edited by hand; restore the database from a backup or use a new store directory.`,
    { cause, details: { what } },
  );
}

export function closedError(operation: string): InternalError {
  return new InternalError(
    STORE_ERROR_CODES.closed,
    `${operation}: the run store is closed; open a new one (openStore) instead of reusing a closed store.`,
  );
}

type StoreErrorCategory = "user" | "environment";

/**
 * A failure of the store itself (not of its caller): a foreign or damaged file, a read-only, full or
 * vanished store. Category `user` (exit 2) when the fix is to choose or repair the store, `environment`
 * (exit 3) when the store failed under a running command. `details.path` names the store.
 */
export class StoreError extends RehearsalError {
  constructor(
    code: StoreErrorCode,
    category: StoreErrorCategory,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, category, message, options);
  }
}

export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError;
}

const FAILURES: Record<
  "diskFull" | "vanished" | "ioError" | "readOnly" | "corrupt" | "notADatabase",
  { category: StoreErrorCategory; what: string; fix: string }
> = {
  diskFull: {
    category: "environment",
    what: "the disk is full",
    fix: "free space on that disk (or pass a --store on another disk) and run again; the run is marked failed and its episode in flight aborted",
  },
  vanished: {
    category: "environment",
    what: "its database file was deleted or moved while in use, so nothing more can be recorded",
    fix: "keep the store directory in place while a command runs, and run again",
  },
  ioError: {
    category: "environment",
    what: "the file system reported an I/O error",
    fix: "check the disk and the mount, then run again",
  },
  readOnly: {
    category: "user",
    what: "it is read-only",
    fix: "make the directory and its files writable, or pass a writable --store; read commands (runs, export) work on a read-only store",
  },
  corrupt: {
    category: "user",
    what: "the database is damaged",
    fix: "restore the directory from a backup, or recover what is readable with `sqlite3 rehearsal.db .recover | sqlite3 recovered.db`, or use a new --store directory",
  },
  notADatabase: {
    category: "user",
    what: "the file is not a SQLite database",
    fix: "choose another --store directory, or move that file away",
  },
};

/** The typed store error for `kind`: `operation` on the store at `path` failed, why, and the fix. */
export function storeError(
  kind: keyof typeof FAILURES,
  operation: string,
  path: string,
  cause?: unknown,
): StoreError {
  const f = FAILURES[kind];
  const reason = cause instanceof Error ? ` (${cause.message})` : "";
  return new StoreError(
    STORE_ERROR_CODES[kind],
    f.category,
    `${operation} (run store ${path}) failed: ${f.what}${reason}. Fix: ${f.fix}.`,
    { ...(cause === undefined ? {} : { cause }), details: { path, operation } },
  );
}

/**
 * What a failure of a store operation means for the store, or undefined when it is not about the
 * store (a caller's protocol error, a bug). Reads SQLite result codes and file-system errno codes.
 */
export function classifyFailure(error: unknown): keyof typeof FAILURES | undefined {
  if (error instanceof RehearsalError) return undefined;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT") return "diskFull";
  if (code === "SQLITE_READONLY_DBMOVED" || code === "ENOENT") return "vanished";
  if (code.startsWith("SQLITE_CORRUPT")) return "corrupt";
  if (code === "SQLITE_NOTADB") return "notADatabase";
  if (code.startsWith("SQLITE_READONLY") || code === "EROFS" || code === "EACCES" || code === "EPERM") {
    return "readOnly";
  }
  if (code.startsWith("SQLITE_IOERR") || code === "SQLITE_CANTOPEN" || code === "EIO") return "ioError";
  return undefined;
}

/** `operation` named a run that is not in the store. */
export function unknownRunError(operation: string, runId: string): InternalError {
  return protocolError(
    STORE_ERROR_CODES.unknownRun,
    `${operation}: no run ${runId} in the store; call createRun first.`,
    { runId },
  );
}

export function duplicateRunError(runId: string): InternalError {
  return protocolError(
    STORE_ERROR_CODES.duplicateId,
    `createRun(${runId}): a run with this id already exists; generate a fresh run id.`,
    { runId },
  );
}

export function unknownTreeError(nodeId: string, treeId: string): InternalError {
  return protocolError(
    STORE_ERROR_CODES.unknownTree,
    `putNodes(node ${nodeId}): no tree ${treeId} in the store; call putTree first.`,
    { treeId },
  );
}
