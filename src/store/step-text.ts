import { z } from "zod";
import {
  type Action,
  ActionSchema,
  type Observation,
  ObservationSchema,
  type StepRecord,
} from "../core/index.ts";

/*
 * The per-step fast path of `encodeStep`: the JSON text of a step that is exactly what
 * `JSON.stringify(StepRecordSchema.parse(step))` gives, without running the step schema on every step.
 * Observations and actions that are deeply frozen (environments cache them per state, e.g. FrozenLake)
 * are validated and serialised once and their text reused: a frozen object cannot change, so its text
 * stays right. Everything else about the step is checked by hand against the schema. Whenever a check
 * fails, or a value is of a kind the fast path does not handle (screenshot bytes, an unusual object),
 * the caller takes the schema path, which gives the same text or the same error as before.
 */

/**
 * Validated JSON text of deeply frozen observations, actions and records, by identity: one cache per
 * schema, so that a value validated as one kind is never taken for another.
 */
const frozenObservations = new WeakMap<object, string>();
const frozenActions = new WeakMap<object, string>();
const frozenRecords = new WeakMap<object, string>();

/** Whether `value` can never change: primitives, or frozen plain data all the way down (no accessors). */
function deepFrozen(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "function";
  if (depth > 32 || !Object.isFrozen(value) || ArrayBuffer.isView(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return false;
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key);
    if (d === undefined || !("value" in d) || !deepFrozen(d.value, depth + 1)) return false;
  }
  return true;
}

/** The cached text of a frozen value, computed once through `parse`; undefined when not frozen or invalid. */
function cachedText(
  cache: WeakMap<object, string>,
  value: object,
  parse: (v: unknown) => { success: boolean; data?: unknown },
): string | undefined {
  const hit = cache.get(value);
  if (hit !== undefined || !deepFrozen(value, 0)) return hit;
  const result = parse(value);
  if (!result.success) return undefined;
  const text = JSON.stringify(result.data);
  cache.set(value, text);
  return text;
}

/** The validated text of a deeply frozen observation (cached), or undefined. */
export function frozenObservationText(observation: Observation): string | undefined {
  if (observation === null || typeof observation !== "object") return undefined;
  return cachedText(frozenObservations, observation, (v) => ObservationSchema.safeParse(v));
}

/**
 * The validated text of an observation that is not cached (not deeply frozen): undefined when invalid or
 * when it carries screenshot bytes (the schema path moves them to artefacts).
 */
export function uncachedObservationText(observation: Observation): string | undefined {
  if (observation === null || typeof observation !== "object") return undefined;
  if (observation.screenshot?.bytes !== undefined) return undefined;
  const parsed = ObservationSchema.safeParse(observation);
  return parsed.success ? JSON.stringify(parsed.data) : undefined;
}

function observationText(observation: Observation): string | undefined {
  if (observation === null || typeof observation !== "object") return undefined;
  return frozenObservationText(observation) ?? uncachedObservationText(observation);
}

/** The validated text of a deeply frozen action (cached), or undefined. */
export function frozenActionText(action: Action): string | undefined {
  return cachedText(frozenActions, action, (v) => ActionSchema.safeParse(v));
}

/** The validated text of an action that is not cached (not deeply frozen), or undefined. */
export function uncachedActionText(action: Action): string | undefined {
  const parsed = ActionSchema.safeParse(action);
  return parsed.success ? JSON.stringify(parsed.data) : undefined;
}

function actionText(action: Action | null): string | undefined {
  if (action === null) return "null";
  if (typeof action !== "object") return undefined;
  return frozenActionText(action) ?? uncachedActionText(action);
}

const InfoSchema = z.record(z.string(), z.unknown());

/** The text of a deeply frozen plain record (cached, as `recordText` gives it), or undefined. */
export function frozenRecordText(value: object): string | undefined {
  // Only deeply frozen values are cached, so a hit needs no frozen check (it showed in the profile).
  const known = frozenRecords.get(value);
  if (known !== undefined || !Object.isFrozen(value)) return known;
  return cachedText(frozenRecords, value, (v) => InfoSchema.safeParse(v));
}

/**
 * The JSON text of a plain object with enumerable string keys only, as `z.record(z.string(), z.unknown())`
 * takes it (and gives it back unchanged); undefined for anything else.
 */
export function recordText(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  return frozenRecordText(value) ?? uncachedRecordText(value);
}

/** `recordText` of a record that is not cached (not deeply frozen). */
export function uncachedRecordText(value: object): string | undefined {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const names = Object.keys(value);
  if (names.length === 0) return Reflect.ownKeys(value).length === 0 ? "{}" : undefined;
  // Symbol or non-enumerable keys (the schema reads them, JSON does not), or an own __proto__.
  if (Reflect.ownKeys(value).length !== names.length || Object.hasOwn(value, "__proto__")) return undefined;
  return JSON.stringify(value);
}

export function parseErrorText(error: StepRecord["parseError"]): string | undefined {
  if (error === undefined) return "";
  if (error === null || typeof error !== "object") return undefined;
  const { code, message } = error;
  if (typeof code !== "string" || typeof message !== "string") return undefined;
  return `,"parseError":${JSON.stringify({ code, message })}`;
}

/**
 * A validated step as the pieces of its stored text (see `stepText`). The observation's and action's
 * texts are shared with the cache, so a store that keeps pieces keeps little per step.
 */
export interface StepPieces {
  readonly index: number;
  readonly observation: string;
  readonly action: string;
  readonly actionType: string | null;
  readonly raw: string;
  /** `,"parseError":{...}` or empty. */
  readonly parseError: string;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly info: string;
  readonly timeMs: number;
}

/**
 * Whether a step's scalar fields are what the fast path takes (an object with a text `raw`, boolean
 * flags, a finite reward and time); its index and texts are checked by the caller.
 */
export function fastStepScalars(step: StepRecord): boolean {
  if (step === null || typeof step !== "object" || Array.isArray(step)) return false;
  return (
    typeof step.raw === "string" &&
    typeof step.terminated === "boolean" &&
    typeof step.truncated === "boolean" &&
    Number.isFinite(step.reward) &&
    Number.isFinite(step.timeMs)
  );
}

/**
 * The pieces of a valid step without screenshot bytes; undefined when the step must take the schema
 * path (invalid, screenshot bytes, or an unusual value).
 */
export function fastStepPieces(step: StepRecord): StepPieces | undefined {
  if (!fastStepScalars(step)) return undefined;
  const { index, reward, terminated, truncated, timeMs, raw } = step;
  if (!Number.isSafeInteger(index) || index < 0) return undefined;
  const observation = observationText(step.observation);
  if (observation === undefined) return undefined;
  const action = actionText(step.action);
  if (action === undefined) return undefined;
  const parseError = parseErrorText(step.parseError);
  if (parseError === undefined) return undefined;
  const info = recordText(step.info);
  if (info === undefined) return undefined;
  const actionType = step.action === null ? null : step.action.type;
  return {
    index,
    observation,
    action,
    actionType,
    raw,
    parseError,
    reward,
    terminated,
    truncated,
    info,
    timeMs,
  };
}

/** The stored JSON text of a step: what `JSON.stringify(StepRecordSchema.parse(step))` gives. */
export function stepText(p: StepPieces): string {
  return `${stepHead(p.index)}${p.observation}${stepTail(p)}`;
}

/**
 * A step's text before its observation. It depends on the index only, so the SQLite store, which keeps
 * each distinct observation once, stores just the tail and rebuilds the head from the step's `idx`.
 */
export function stepHead(index: number): string {
  return `{"index":${index},"observation":`;
}

/** A step's text after its observation: `stepHead(index) + observation + stepTail` is `stepText`. */
export function stepTail(p: StepPieces): string {
  return `${stepMiddle(p)}${stepEnd(p.timeMs)}`;
}

/**
 * A step's text between its observation and its time: action, raw text, parse error, reward, flags and
 * info. Steps repeat it (a grid world's moves from the same cell), so the SQLite store keeps a recurring
 * one once.
 */
export function stepMiddle(p: StepPieces): string {
  return middleText(middlePieces(p));
}

/** The pieces of a step's middle (`stepMiddle`), the raw text already quoted. */
export interface MiddlePieces {
  readonly action: string;
  /** `JSON.stringify(raw)`. */
  readonly rawText: string;
  readonly parseError: string;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly info: string;
}

export function middlePieces(p: StepPieces): MiddlePieces {
  return {
    action: p.action,
    rawText: JSON.stringify(p.raw),
    parseError: p.parseError,
    reward: p.reward,
    terminated: p.terminated,
    truncated: p.truncated,
    info: p.info,
  };
}

export function middleText(m: MiddlePieces): string {
  return `,"action":${m.action},"raw":${m.rawText}${m.parseError},"reward":${m.reward},"terminated":${m.terminated},"truncated":${m.truncated},"info":${m.info}`;
}

/** At least the length of `middleText(m)`, without building it: keys, the longest number and flags. */
export function middleLength(m: MiddlePieces): number {
  return 100 + m.action.length + m.rawText.length + m.parseError.length + m.info.length;
}

/** A step's text after its middle: `stepMiddle + stepEnd` is `stepTail`. */
export function stepEnd(timeMs: number): string {
  return `,"timeMs":${timeMs}}`;
}

/** `fastStepPieces` joined into text. */
export function fastStepText(step: StepRecord): string | undefined {
  const pieces = fastStepPieces(step);
  return pieces && stepText(pieces);
}
