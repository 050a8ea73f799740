import type { z } from "zod";
import { ACTION_TYPES, type Action, ActionSchema, type ActionType } from "../core/action.ts";
import { canonicalJson } from "../core/hash.ts";
import type { ActionError } from "../core/observation.ts";
import {
  afterActionMarker,
  extractJsonCandidates,
  fencedBlocks,
  type JsonCandidate,
} from "./json-extract.ts";

/** Why a model reply did not give an action. Distinct codes, so they can be counted and trained on. */
export const PARSE_ERROR_CODES = {
  empty: "parse.empty",
  noAction: "parse.no_action",
  multipleActions: "parse.multiple_actions",
  unknownAction: "parse.unknown_action",
  invalidArguments: "parse.invalid_arguments",
  truncated: "parse.truncated",
  invalidJson: "parse.invalid_json",
  notObject: "parse.not_object",
  missingType: "parse.missing_type",
} as const;
export type ParseErrorCode = (typeof PARSE_ERROR_CODES)[keyof typeof PARSE_ERROR_CODES];

export type ParseActionResult =
  | { ok: true; action: Action }
  | { ok: false; error: ActionError & { code: ParseErrorCode } };

/** Fields models like to add that carry no action meaning; dropped when the action type lacks them. */
const COMMENTARY_KEYS = [
  "thought",
  "thoughts",
  "thinking",
  "reasoning",
  "rationale",
  "explanation",
  "comment",
];

const SHAPES = new Map<string, ReadonlySet<string>>(
  ActionSchema.options.map((o) => [o.shape.type.value, new Set(Object.keys(o.shape))]),
);

const fail = (code: ParseErrorCode, message: string): ParseActionResult => ({
  ok: false,
  error: { code, message },
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `{"type": ...}` as is; `{"action": {...}}` unwrapped; `{"action": "click", ...}` read as the type. */
function asActionLike(value: unknown): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  if ("type" in value) return value;
  const inner = value.action;
  if (isObject(inner) && "type" in inner) return inner;
  if (typeof inner === "string") {
    const { action: _drop, ...rest } = value;
    return { ...rest, type: inner };
  }
  return undefined;
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = input;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** One short phrase per zod issue: missing fields, wrong types, out-of-range values. */
function summariseIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const path = issue.path.map(String).join(".") || "action";
  switch (issue.code) {
    case "invalid_type": {
      const value = valueAt(input, issue.path);
      return value === undefined
        ? `${path}: missing (expected ${issue.expected})`
        : `${path}: wrong type (expected ${issue.expected}, got ${describe(value)})`;
    }
    case "too_big":
      return issue.origin === "string" || issue.origin === "array"
        ? `${path}: too long (at most ${String(issue.maximum)})`
        : `${path}: out of range (at most ${String(issue.maximum)})`;
    case "too_small":
      return issue.origin === "string" || issue.origin === "array"
        ? `${path}: too short (at least ${String(issue.minimum)})`
        : `${path}: out of range (at least ${String(issue.minimum)})`;
    case "invalid_value":
      return `${path}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return `unexpected field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    default:
      return issue.path.length > 0 ? `${path}: ${issue.message}` : issue.message;
  }
}

function validate(candidate: Record<string, unknown>): ParseActionResult {
  const type = candidate.type;
  if (typeof type !== "string" || !SHAPES.has(type))
    return fail(
      PARSE_ERROR_CODES.unknownAction,
      `unknown action type ${JSON.stringify(type)}; use one of: ${ACTION_TYPES.join(", ")}`,
    );
  const fields = SHAPES.get(type) as ReadonlySet<string>;
  const cleaned = Object.fromEntries(
    Object.entries(candidate).filter(([k]) => fields.has(k) || !COMMENTARY_KEYS.includes(k)),
  );
  const result = ActionSchema.safeParse(cleaned);
  if (result.success) return { ok: true, action: result.data };
  const parts = [...new Set(result.error.issues.map((i) => summariseIssue(i, cleaned)))];
  return fail(PARSE_ERROR_CODES.invalidArguments, `invalid arguments for ${type}: ${parts.join("; ")}`);
}

function decide(actions: Record<string, unknown>[]): ParseActionResult {
  const unique = [...new Map(actions.map((a) => [canonicalJson(a), a])).values()];
  if (unique.length > 1) {
    const types = unique.map((a) => String(a.type)).join(", ");
    return fail(
      PARSE_ERROR_CODES.multipleActions,
      `found ${unique.length} actions (${types}); reply with exactly one action`,
    );
  }
  return validate(unique[0] as Record<string, unknown>);
}

const looksLikeTruncatedAction = (c: JsonCandidate) =>
  c.kind === "truncated" && /"(type|action)"/.test(c.text);

/** Why no action was found in `candidates`, most specific first. */
function diagnose(candidates: JsonCandidate[]): ParseActionResult {
  if (candidates.some((c) => c.kind === "truncated"))
    return fail(
      PARSE_ERROR_CODES.truncated,
      "the JSON action is cut off (unbalanced braces or an open string)",
    );
  const values = candidates.filter((c) => c.kind === "value");
  const nonObject = values.find((c) => !isObject(c.value));
  if (nonObject && values.every((c) => !isObject(c.value)))
    return fail(
      PARSE_ERROR_CODES.notObject,
      `expected a JSON object with a "type" field, got ${describe(nonObject.value)}`,
    );
  if (values.some((c) => isObject(c.value)))
    return fail(
      PARSE_ERROR_CODES.missingType,
      'found a JSON object without a "type" field naming the action',
    );
  if (candidates.some((c) => c.kind === "invalid"))
    return fail(
      PARSE_ERROR_CODES.invalidJson,
      "found a {...} block that is not valid JSON (use double quotes)",
    );
  return fail(
    PARSE_ERROR_CODES.noAction,
    'no JSON action found; reply with one object like {"type": "done"}',
  );
}

/**
 * The one action in a model reply. Accepts a JSON object alone, in a ``` fence, after `Action:`, or
 * inside prose; rejects with a distinct code otherwise. Never throws.
 */
export function parseAction(text: string): ParseActionResult {
  try {
    if (typeof text !== "string" || text.trim() === "")
      return fail(PARSE_ERROR_CODES.empty, "the reply is empty");
    const marker = afterActionMarker(text);
    const regionSets: string[][] = [fencedBlocks(text), marker === undefined ? [] : [marker], [text]];
    for (const regions of regionSets) {
      if (regions.length === 0) continue;
      const candidates = regions.flatMap(extractJsonCandidates);
      const actions = candidates.flatMap((c) => {
        const a = c.kind === "value" ? asActionLike(c.value) : undefined;
        return a ? [a] : [];
      });
      if (actions.length > 0) {
        if (candidates.some(looksLikeTruncatedAction))
          return fail(
            PARSE_ERROR_CODES.multipleActions,
            "found an action followed by a second, cut-off one; reply with exactly one action",
          );
        return decide(actions);
      }
      if (candidates.some(looksLikeTruncatedAction)) return diagnose(candidates);
    }
    return diagnose(extractJsonCandidates(text));
  } catch (error) {
    return fail(PARSE_ERROR_CODES.noAction, `could not read the reply: ${String(error)}`);
  }
}

/** The action types, for prompts and docs. */
export const KNOWN_ACTION_TYPES: ReadonlyArray<ActionType> = ACTION_TYPES;
