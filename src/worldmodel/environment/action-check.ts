import { type ActionError, ActionSchema, MAX_SHELL_COMMAND_CHARS } from "../../core/index.ts";

type Fields = Record<string, unknown>;

const optionalString = (v: unknown) => v === undefined || typeof v === "string";
const id = (v: unknown) => typeof v === "string" && v.length > 0;
const finite = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const DIRECTIONS = new Set(["up", "down", "left", "right"]);
const KEYS = /^[^+\s]+(\+[^+\s]+)*$|^\+$/;
const UCI = /^[a-h][1-8][a-h][1-8][qrbn]?$/;

/** A pointer action: exactly an elementId, or both x and y (finite numbers). */
function pointer(a: Fields, keys: number): boolean {
  if ("elementId" in a) return keys === 2 && id(a.elementId);
  return keys === 3 && finite(a.x) && finite(a.y);
}

/** Per action type: whether the action's own fields (`keys` of them, type included) are well formed. */
const CHECKS: Record<string, (a: Fields, keys: number) => boolean> = {
  click: pointer,
  double_click: pointer,
  right_click: pointer,
  hover: pointer,
  type: (a, keys) =>
    typeof a.text === "string" && ("elementId" in a ? keys === 3 && id(a.elementId) : keys === 2),
  key: (a, keys) => keys === 2 && typeof a.keys === "string" && KEYS.test(a.keys),
  select: (a, keys) => keys === 3 && id(a.elementId) && typeof a.value === "string",
  move: (a, keys) => keys === 2 && DIRECTIONS.has(a.direction as string),
  uci: (a, keys) => keys === 2 && typeof a.move === "string" && UCI.test(a.move),
  shell: (a, keys) =>
    keys === 2 &&
    typeof a.command === "string" &&
    a.command.length <= MAX_SHELL_COMMAND_CHARS &&
    a.command.trim().length > 0,
  done: (a, keys) => (keys === 1 || (keys === 2 && "answer" in a)) && optionalString(a.answer),
  fail: (a, keys) => (keys === 1 || (keys === 2 && "reason" in a)) && optionalString(a.reason),
};

/** The fields each covered type may have besides `type`. */
const FIELDS: Record<string, ReadonlySet<string>> = {
  click: new Set(["elementId", "x", "y"]),
  double_click: new Set(["elementId", "x", "y"]),
  right_click: new Set(["elementId", "x", "y"]),
  hover: new Set(["elementId", "x", "y"]),
  type: new Set(["text", "elementId"]),
  key: new Set(["keys"]),
  select: new Set(["elementId", "value"]),
  move: new Set(["direction"]),
  uci: new Set(["move"]),
  shell: new Set(["command"]),
  done: new Set(["answer"]),
  fail: new Set(["reason"]),
};

/**
 * Whether `action` is a well-formed action of a common type, checked without zod (a step's commonest
 * input): true only for what `ActionSchema` accepts — a plain object whose own keys are exactly the
 * type's fields, none of them undefined; false leaves the decision (and the error's wording) to the
 * schema. Types it does not cover (drag, scroll, wait) always go to the schema.
 */
export function plainAction(action: unknown): boolean {
  if (typeof action !== "object" || action === null) return false;
  const proto = Object.getPrototypeOf(action);
  if (proto !== Object.prototype && proto !== null) return false;
  const a = action as Fields;
  const type = a.type;
  if (typeof type !== "string" || !Object.hasOwn(a, "type") || !Object.hasOwn(CHECKS, type)) return false;
  const fields = FIELDS[type] as ReadonlySet<string>;
  const keys = Object.keys(a);
  for (const k of keys) if (a[k] === undefined || (k !== "type" && !fields.has(k))) return false;
  return (CHECKS[type] as (a: Fields, keys: number) => boolean)(a, keys.length);
}

/**
 * The error of an action that is not an action at all (fails the core action schema), as the real
 * environments report it (`invalid_action`); undefined for a well-formed one, which the simulator judges.
 */
export function invalidActionError(action: unknown): ActionError | undefined {
  if (plainAction(action)) return undefined;
  const parsed = ActionSchema.safeParse(action);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(action)"}: ${i.message}`);
  return {
    code: "invalid_action",
    message: `The world model accepts only actions of the action schema; ${JSON.stringify(action)} is not one (${issues.join("; ")}).`,
  };
}
