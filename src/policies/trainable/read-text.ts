import { readTextFile, UserError } from "../../core/index.ts";

/** The text of a file a user named; unreadable is a UserError `code` naming the operation, file and fix. */
export function readUserFile(path: string, code: string, operation: string, fix: string): string {
  return readTextFile(
    path,
    (e) => new UserError(code, `${operation}: cannot read ${path}: ${e.message}; ${fix}`, { cause: e }),
  );
}
