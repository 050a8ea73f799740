import { canonicalJson, type StateFieldSpec, type StateRecord, type StateValue } from "../../core/index.ts";
import { applyConsequences } from "../worldbook/consequences.ts";
import { applyEffects } from "../worldbook/evidence.ts";
import { typeOf } from "../worldbook/invariants.ts";
import type { Effect, Rule, Worldbook } from "../worldbook/schema.ts";

/** Whether `pattern` (dotted segments, `*` for any one segment) matches `path`. */
export function matchesFieldPattern(pattern: string, path: string): boolean {
  const a = pattern.split(".");
  const b = path.split(".");
  return a.length === b.length && a.every((part, i) => part === "*" || part === b[i]);
}

/** A per-path memo of a lookup (a step asks about the same few paths again and again). */
function memo<T>(lookup: (path: string) => T): (path: string) => T {
  const cache = new Map<string, T>();
  return (path) => {
    if (cache.has(path)) return cache.get(path) as T;
    const value = lookup(path);
    cache.set(path, value);
    return value;
  };
}

/** The invariant and schema lookups of one worldbook, precomputed. */
export interface ValidationIndex {
  fieldOf(path: string): StateFieldSpec | undefined;
  isConstant(path: string): boolean;
  /** The task's own range when the book has per-task ranges for it, else the global one. */
  rangeOf(path: string, taskId?: string): { min: number; max: number } | undefined;
  valuesOf(path: string): Set<string> | undefined;
}

/**
 * Field lookups: a path matches a field pattern exactly (with `*`), or else a sibling pattern with the
 * same first and last segment and length (`el.e99.checked` ↔ `el.e12.checked`), so that a lifted rule
 * may touch an element no build trace showed; constants, ranges and value sets match exactly only.
 */
export function indexValidation(book: Worldbook): ValidationIndex {
  const fields = book.schemas.fields;
  const cache = new Map<string, StateFieldSpec | undefined>();
  const find = <T extends { path: string }>(list: ReadonlyArray<T>, path: string) =>
    list.find((x) => matchesFieldPattern(x.path, path));
  const constants = book.invariants.constantWithinEpisode;
  const taskRanges = new Map<string, Array<{ path: string; min: number; max: number }>>();
  for (const r of book.invariants.taskRanges ?? []) {
    const list = taskRanges.get(r.task) ?? [];
    list.push(r);
    taskRanges.set(r.task, list);
  }
  const globalRange = memo((path) => find(book.invariants.ranges, path));
  const ownRanges = new WeakMap<object, (path: string) => { min: number; max: number } | undefined>();
  const findOwnRange = (list: Array<{ path: string; min: number; max: number }>, path: string) => {
    let lookup = ownRanges.get(list);
    if (!lookup) {
      lookup = memo((p) => find(list, p));
      ownRanges.set(list, lookup);
    }
    return lookup(path);
  };
  const valueSets = new Map(
    book.invariants.values.map((v) => [v.path, new Set(v.values.map((x) => canonicalJson(x)))]),
  );
  return {
    fieldOf(path) {
      if (cache.has(path)) return cache.get(path);
      let spec = find(fields, path);
      if (!spec) {
        const parts = path.split(".");
        spec = fields.find((f) => {
          const p = f.path.split(".");
          return p.length === parts.length && p.length > 2 && p[0] === parts[0] && p.at(-1) === parts.at(-1);
        });
      }
      cache.set(path, spec);
      return spec;
    },
    isConstant: memo((path) => constants.some((c) => matchesFieldPattern(c, path))),
    rangeOf(path, taskId) {
      const own = taskId === undefined ? undefined : taskRanges.get(taskId);
      return (own && findOwnRange(own, path)) ?? globalRange(path);
    },
    valuesOf: memo((path) => {
      const entry = find(book.invariants.values, path);
      return entry ? valueSets.get(entry.path) : undefined;
    }),
  };
}

/** Why a changed path breaks the schema or an invariant; undefined when it does not. */
function violation(
  index: ValidationIndex,
  path: string,
  value: StateValue | undefined,
  taskId: string | undefined,
): string | undefined {
  const spec = index.fieldOf(path);
  if (!spec) return `path ${path} is not in the state schema`;
  if (index.isConstant(path))
    return `path ${path} is constant within an episode (invariant) but would change`;
  if (value === undefined) return undefined;
  const type = typeOf(value);
  if (type !== spec.type && value !== null)
    return `path ${path} would hold a ${type} (${canonicalJson(value)}), the schema says ${spec.type}`;
  const range = index.rangeOf(path, taskId);
  if (range && typeof value === "number" && (value < range.min || value > range.max))
    return `path ${path} would be ${value}, outside the invariant range [${range.min}, ${range.max}]`;
  const values = index.valuesOf(path);
  if (values && !values.has(canonicalJson(value)))
    return `path ${path} would be ${canonicalJson(value)}, not one of the ${values.size} values the traces showed`;
  return undefined;
}

/**
 * The paths `applyEffects(before, effects)` changed, sorted (as `diffStates` lists them): an effect
 * writes only its own path, so only those can differ — the state's other paths are not compared.
 */
export function pathsChangedBy(
  before: StateRecord,
  after: StateRecord,
  effects: ReadonlyArray<Effect>,
): string[] {
  const touched = [...new Set(effects.map((e) => e.path))].sort();
  return touched.filter((path) => !sameValue(before[path], after[path]));
}

function sameValue(a: StateValue | undefined, b: StateValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

export type Validation =
  | { ok: true; state: StateRecord; reward: number; terminated: boolean }
  | { ok: false; reason: string };

/**
 * The validation gate: apply `effects` to a copy of `before`, check every changed path against the state
 * schema and the invariants, and (for a rule proposal) that the rule is supported above the threshold;
 * then the worldbook's consequences give reward and termination unless the proposal fixed them.
 */
export function validateProposal(
  book: Worldbook,
  index: ValidationIndex,
  before: StateRecord,
  proposal: { effects: ReadonlyArray<Effect>; reward?: number; terminated?: boolean },
  context: { taskId?: string; rule?: { rule: Rule; threshold: number } } = {},
): Validation {
  const rule = context.rule;
  if (rule && (rule.rule.status !== "supported" || rule.rule.confidence < rule.threshold))
    return {
      ok: false,
      reason: `rule ${rule.rule.id} is not supported (status ${rule.rule.status}, confidence ${rule.rule.confidence.toFixed(3)})`,
    };
  const after = applyEffects(before, proposal.effects);
  for (const path of pathsChangedBy(before, after, proposal.effects)) {
    const reason = violation(index, path, after[path], context.taskId);
    if (reason) return { ok: false, reason };
  }
  const c = applyConsequences(book, after);
  return {
    ok: true,
    state: c.state,
    reward: proposal.reward ?? c.reward,
    terminated: proposal.terminated ?? c.terminated,
  };
}
