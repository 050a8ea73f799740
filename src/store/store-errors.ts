import { z } from "zod";
import { InternalError } from "../core/index.ts";
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
