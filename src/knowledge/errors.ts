import type { z } from "zod";
import { UserError } from "../core/errors.ts";
import { formatIssues } from "../core/read-json-file.ts";

/** Codes of the knowledge layer's errors (all `UserError`s: the caller misused the table or gave bad input). */
export const KNOWLEDGE_ERROR_CODES = {
  frozen: "knowledge.frozen",
  badFile: "knowledge.bad_file",
  badOptions: "knowledge.bad_options",
  badEpisode: "knowledge.bad_episode",
} as const;

/** A write to a frozen (read-only) knowledge table: held-out evaluation must not learn. */
export class KnowledgeFrozenError extends UserError {
  constructor(key: string) {
    super(
      KNOWLEDGE_ERROR_CODES.frozen,
      `The knowledge table is frozen (read-only for held-out evaluation); refused to write "${key}".`,
    );
  }
}

/** A persisted knowledge file that does not parse. */
export class KnowledgeFileError extends UserError {
  constructor(path: string, detail: string, cause?: unknown) {
    super(KNOWLEDGE_ERROR_CODES.badFile, `Knowledge file ${path} is not valid: ${detail}`, {
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/** Options that do not validate (experiment options, buffer queries). */
export class KnowledgeOptionsError extends UserError {
  constructor(what: string, detail: string, cause?: unknown) {
    super(KNOWLEDGE_ERROR_CODES.badOptions, `${what} are invalid: ${detail}`, {
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/** An episode given to the experience buffer that breaks its invariants (no state keys, wrong order). */
export class KnowledgeEpisodeError extends UserError {
  constructor(episodeId: string, detail: string) {
    super(KNOWLEDGE_ERROR_CODES.badEpisode, `Episode "${episodeId}" cannot enter the buffer: ${detail}`);
  }
}

/** "path: message; ..." from zod issues. */
export function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return formatIssues(issues);
}

/** Parses `input` with `schema`; a `KnowledgeOptionsError` names `what` and each problem. */
export function parseKnowledgeOptions<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new KnowledgeOptionsError(what, describeIssues(parsed.error.issues), parsed.error);
  return parsed.data;
}
