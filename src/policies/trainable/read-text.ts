import { readFileSync } from "node:fs";
import { UserError } from "../../core/index.ts";

/** The text of a file a user named; unreadable is a UserError `code` naming the operation, file and fix. */
export function readUserFile(path: string, code: string, operation: string, fix: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new UserError(code, `${operation}: cannot read ${path}: ${(e as Error).message}; ${fix}`, {
      cause: e,
    });
  }
}
