import { canonicalJson, type StateRecord, type StateScalar, type StateValue } from "../../core/index.ts";
import { applyEffects } from "./evidence.ts";
import type { Condition, Effect } from "./schema.ts";

/** An action as a record of its arguments (what `{arg}` parts of rule paths are filled from). */
export type ActionArgs = Readonly<Record<string, unknown>>;

const PART = /\{([^}]+)\}/g;

/** `template` with each `{arg}` part replaced by the action's argument; undefined when one is missing. */
export function resolvePath(template: string, action: ActionArgs): string | undefined {
  let missing = false;
  const path = template.replace(PART, (_, name: string) => {
    const v = action[name];
    if (v === undefined || v === null || typeof v === "object") missing = true;
    return String(v);
  });
  return missing ? undefined : path;
}

/** The value a `from` reference reads: `action.<arg>` or `state.<path>` (path may hold `{arg}` parts). */
export function resolveReference(
  from: string,
  state: StateRecord,
  action: ActionArgs,
): StateValue | undefined {
  const dot = from.indexOf(".");
  const kind = from.slice(0, dot);
  const rest = from.slice(dot + 1);
  if (kind === "action") {
    const v = action[rest];
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
    return undefined;
  }
  const path = resolvePath(rest, action);
  return path === undefined ? undefined : state[path];
}

/**
 * The rule's effects made concrete for this action and state: paths filled, `from` values read.
 * Undefined when a path part or a referenced value is missing (the effect cannot be known).
 */
export function resolveEffects(
  effects: ReadonlyArray<Effect>,
  state: StateRecord,
  action: ActionArgs,
): Effect[] | undefined {
  const out: Effect[] = [];
  for (const effect of effects) {
    const path = resolvePath(effect.path, action);
    if (path === undefined) return undefined;
    if (effect.from === undefined) {
      out.push(path === effect.path ? effect : { ...effect, path });
      continue;
    }
    const value = resolveReference(effect.from, state, action);
    if (value === undefined) return undefined;
    const { from: _from, ...rest } = effect;
    out.push({ ...rest, path, value });
  }
  return out;
}

/** `effects` resolved and applied to a copy of `state`; undefined when they cannot be resolved. */
export function applyRuleEffects(
  state: StateRecord,
  effects: ReadonlyArray<Effect>,
  action: ActionArgs,
): StateRecord | undefined {
  const resolved = resolveEffects(effects, state, action);
  return resolved === undefined ? undefined : applyEffects(state, resolved);
}

function scalarEqual(a: StateValue, b: StateValue): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}

/**
 * Whether a condition holds: true, false, or "unknown" when it reads a path the state does not hold
 * (a missing entry is unknown, never false) — except `exists`/`not_exists`, which test exactly that.
 */
export function evaluateCondition(
  condition: Condition,
  state: StateRecord,
  action: ActionArgs,
): boolean | "unknown" {
  const path = resolvePath(condition.path, action);
  if (path === undefined) return "unknown";
  const value = state[path];
  if (condition.op === "exists") return value !== undefined;
  if (condition.op === "not_exists") return value === undefined;
  if (value === undefined) return "unknown";
  const target = condition.value;
  switch (condition.op) {
    case "eq":
      return target !== undefined && scalarEqual(value, target);
    case "ne":
      return target !== undefined && !scalarEqual(value, target);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (typeof value !== "number" || typeof target !== "number") return false;
      if (condition.op === "gt") return value > target;
      if (condition.op === "gte") return value >= target;
      return condition.op === "lt" ? value < target : value <= target;
    }
    case "contains":
      if (Array.isArray(value)) return value.some((v) => !Array.isArray(target) && v === target);
      return typeof value === "string" && typeof target === "string" && value.includes(target);
    case "in":
      return Array.isArray(target) && target.some((t: StateScalar) => scalarEqual(value, t));
  }
}

/**
 * All conditions together: false when one is false, else "unknown" when one reads unknown state, else
 * true. `failed` names the first condition that decided a false or unknown result.
 */
export function evaluateConditions(
  conditions: ReadonlyArray<Condition>,
  state: StateRecord,
  action: ActionArgs,
): { result: boolean | "unknown"; failed?: Condition } {
  let unknown: Condition | undefined;
  for (const c of conditions) {
    const r = evaluateCondition(c, state, action);
    if (r === false) return { result: false, failed: c };
    if (r === "unknown" && unknown === undefined) unknown = c;
  }
  return unknown ? { result: "unknown", failed: unknown } : { result: true };
}

/** Whether a rule's action group covers `action`: every required argument equal, every param present. */
export function matchesAction(
  rule: { action: Readonly<Record<string, unknown>>; params: ReadonlyArray<string> },
  action: ActionArgs,
): boolean {
  for (const [k, v] of Object.entries(rule.action)) {
    if (canonicalJson(action[k] ?? null) !== canonicalJson(v ?? null)) return false;
  }
  return rule.params.every((p) => action[p] !== undefined);
}
