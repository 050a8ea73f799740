import type { z } from "zod";
import { UserError } from "../core/index.ts";

/**
 * `input` validated by `schema` (undefined reads as {}); an invalid one is a UserError `code` naming
 * each bad field under `root` (e.g. `rewards.gamma`), followed by `hint` (what valid values are).
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: { code: string; root: string; hint: string },
): z.infer<S> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${[what.root, ...i.path.map(String)].join(".")}: ${i.message}`);
  throw new UserError(`rl.${what.code}`, `invalid options: ${issues.join("; ")}; ${what.hint}`, {
    details: { issues: r.error.issues },
  });
}

/** The validating parser of one options schema (see `parseOptions`). */
export function optionsParser<S extends z.ZodType>(
  schema: S,
  what: { code: string; root: string; hint: string },
): (input?: unknown) => z.infer<S> {
  return (input = {}) => parseOptions(schema, input, what);
}
