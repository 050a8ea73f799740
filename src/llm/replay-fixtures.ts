import { existsSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { canonicalJson, sha256Hex } from "../core/hash.ts";
import { formatIssues, readJsonFile, validateWith } from "../core/read-json-file.ts";

/**
 * Recorded LLM responses, keyed by the hash of the canonical request. File format (JSON):
 *
 * ```json
 * { "version": 1,
 *   "entries": [
 *     { "key": "<sha256 of the canonical request>",
 *       "request": { "model": "m", "n": 1, "temperature": 0, "messages": [...] },
 *       "responses": [
 *         { "status": 429, "error": "slow down", "retryAfterS": 1 },
 *         { "texts": ["{\"type\":\"done\"}"], "usage": { "promptTokens": 10, "completionTokens": 5 } }
 *       ] } ] }
 * ```
 *
 * The k-th request with a key gets `responses[k]`; after the script ends the last response repeats.
 * `request` is for people reading the file (image data URLs are shortened to their sha256).
 */
const CompletionStepSchema = z
  .object({
    status: z.literal(200).default(200),
    texts: z.array(z.string()),
    usage: z
      .object({
        promptTokens: z.number().int().nonnegative(),
        completionTokens: z.number().int().nonnegative(),
      })
      .strict()
      .optional(),
    delayMs: z.number().int().nonnegative().optional(),
  })
  .strict();

const ErrorStepSchema = z
  .object({
    status: z.number().int().min(400).max(599),
    error: z.string().default("scripted failure"),
    retryAfterS: z.number().nonnegative().optional(),
    delayMs: z.number().int().nonnegative().optional(),
  })
  .strict();

export const ReplayStepSchema = z.union([CompletionStepSchema, ErrorStepSchema]);
export type ReplayStep = z.infer<typeof ReplayStepSchema>;
export type ReplayStepInput = z.input<typeof ReplayStepSchema>;

export const FixtureEntrySchema = z
  .object({
    key: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 hex key (see fixtureKey)"),
    note: z.string().optional(),
    request: z.unknown().optional(),
    responses: z.array(ReplayStepSchema).min(1),
  })
  .strict();
export type FixtureEntry = z.infer<typeof FixtureEntrySchema>;

export const FixtureFileSchema = z
  .object({ version: z.literal(1), entries: z.array(FixtureEntrySchema) })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.entries.forEach((e, i) => {
      if (seen.has(e.key))
        ctx.addIssue({ code: "custom", path: ["entries", i, "key"], message: `duplicate key ${e.key}` });
      seen.add(e.key);
    });
  });
export type FixtureFile = z.infer<typeof FixtureFileSchema>;

/** The request fields that identify a recorded response. */
export interface FixtureRequest {
  model: string;
  messages: ReadonlyArray<unknown>;
  n?: number | undefined;
  temperature?: number | undefined;
  seed?: number | undefined;
}

/** The canonical form that is hashed: n defaults to 1, temperature to 1 (the API's defaults). */
export function canonicalFixtureRequest(request: FixtureRequest): Record<string, unknown> {
  return {
    model: request.model,
    messages: request.messages,
    n: request.n ?? 1,
    temperature: request.temperature ?? 1,
    ...(request.seed === undefined ? {} : { seed: request.seed }),
  };
}

/** sha256 hex of the canonical JSON of (model, messages, n, temperature, seed). */
export function fixtureKey(request: FixtureRequest): string {
  return sha256Hex(canonicalJson(canonicalFixtureRequest(request)));
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** The canonical request with image data URLs replaced by `data:<mime>;sha256,<hash>` (for reading). */
export function summariseRequest(request: FixtureRequest): unknown {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const m = DATA_URL.exec(v);
      return m ? `data:${m[1]};sha256,${sha256Hex(Buffer.from(m[2] ?? "", "base64"))}` : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(canonicalFixtureRequest(request));
}

/** A fixture entry for `request` answered by `texts` (one per choice), or by a scripted sequence. */
export function fixtureEntry(
  request: FixtureRequest,
  response:
    | { texts: string[]; usage?: { promptTokens: number; completionTokens: number } }
    | ReplayStepInput[],
  note?: string,
): FixtureEntry {
  const steps = Array.isArray(response) ? response : [response];
  return FixtureEntrySchema.parse({
    key: fixtureKey(request),
    ...(note === undefined ? {} : { note }),
    request: summariseRequest(request),
    responses: steps,
  });
}

/** Reads and validates a fixture file; a UserError names the file and the problem. */
export function loadFixtureFile(path: string): FixtureFile {
  const unreadable = (cause: Error) =>
    new UserError("fixture.unreadable", `Cannot read LLM fixture file ${path}: ${String(cause)}`, {
      cause,
    });
  return readJsonFile(path, FixtureFileSchema, {
    unreadable,
    syntax: unreadable,
    invalid: (error) => fixtureInvalid(error, path),
  });
}

export function parseFixtureFile(raw: unknown, source = "fixtures"): FixtureFile {
  return validateWith(FixtureFileSchema, raw, (error) => fixtureInvalid(error, source));
}

function fixtureInvalid(error: z.ZodError, source: string): UserError {
  return new UserError(
    "fixture.invalid",
    `Invalid LLM fixture file ${source}: ${formatIssues(error.issues, { top: "(file)" })}. Fix: see the format in src/llm/replay-fixtures.ts`,
  );
}

/** Stable text of a fixture file: entries sorted by key, two-space indent, final newline. */
export function formatFixtureFile(file: FixtureFile): string {
  const entries = [...file.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return `${JSON.stringify({ version: 1, entries }, null, 2)}\n`;
}

/**
 * Adds (or replaces) the entry for `exchange.request` in the fixture file at `path`, creating it when
 * missing. Synchronous, so concurrent callbacks in one process never interleave. To record against a
 * real endpoint: `createChatClient(config, runtime, { onExchange: (e) => recordFixture(path, e) })`,
 * run once, then replay with `startReplayServer({ fixturePath: path })`.
 */
export function recordFixture(
  path: string,
  exchange: {
    request: FixtureRequest;
    texts: string[];
    usage?: { promptTokens: number; completionTokens: number };
  },
  note?: string,
): FixtureEntry {
  const file: FixtureFile = existsSync(path) ? loadFixtureFile(path) : { version: 1, entries: [] };
  const entry = fixtureEntry(
    exchange.request,
    exchange.usage ? { texts: exchange.texts, usage: exchange.usage } : { texts: exchange.texts },
    note,
  );
  const entries = file.entries.filter((e) => e.key !== entry.key);
  entries.push(entry);
  writeFileSync(path, formatFixtureFile({ version: 1, entries }));
  return entry;
}
