import { readFileSync } from "node:fs";
import type { z } from "zod";
import type { RehearsalError } from "./errors.ts";

/** One zod issue as the formatter reads it (a `ZodError`'s `issues`). */
export interface IssueLike {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/**
 * "a.b: message; ..." from zod issues. With `root`, every path starts with it ("config.episodes: ...");
 * without, an issue about the whole value is named `top` ("(root)" unless told, e.g. "(file)").
 */
export function formatIssues(
  issues: ReadonlyArray<IssueLike>,
  options: { root?: string; top?: string } = {},
): string {
  const { root, top = "(root)" } = options;
  return issues
    .map((i) => {
      const path = i.path.map(String);
      const where = root === undefined ? path.join(".") || top : [root, ...path].join(".");
      return `${where}: ${i.message}`;
    })
    .join("; ");
}

/**
 * How a reader tells each problem of one file: every function returns the typed error to throw, so
 * each caller keeps its own error codes, wording and fix.
 */
export interface JsonFileErrors {
  /** The file cannot be read (missing, a folder, no permission). */
  unreadable(cause: Error): RehearsalError;
  /** The text is not JSON. */
  syntax(cause: Error): RehearsalError;
  /** The JSON value does not validate against the schema. */
  invalid(error: z.ZodError): RehearsalError;
}

/** The text of a file; a failure to read it is the error `unreadable` makes. */
export function readTextFile(path: string, unreadable: JsonFileErrors["unreadable"]): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw unreadable(e as Error);
  }
}

/** Validates `data` with `schema`; a value that does not validate is the error `invalid` makes. */
export function validateWith<T extends z.ZodType>(
  schema: T,
  data: unknown,
  invalid: JsonFileErrors["invalid"],
): z.output<T> {
  const r = schema.safeParse(data);
  if (!r.success) throw invalid(r.error);
  return r.data;
}

/** Parses JSON text and validates it with `schema`; each problem is the error its function makes. */
export function parseJsonText<T extends z.ZodType>(
  text: string,
  schema: T,
  errors: Pick<JsonFileErrors, "syntax" | "invalid">,
): z.output<T> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw errors.syntax(e as Error);
  }
  return validateWith(schema, data, errors.invalid);
}

/** Reads a JSON file and validates it with `schema`: read, parse, validate, each with its own error. */
export function readJsonFile<T extends z.ZodType>(
  path: string,
  schema: T,
  errors: JsonFileErrors,
): z.output<T> {
  return parseJsonText(readTextFile(path, errors.unreadable), schema, errors);
}
