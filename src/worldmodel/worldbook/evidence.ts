import { canonicalJson, type StateRecord, type StateScalar, type StateValue } from "../../core/index.ts";
import type { TraceStep } from "../trace.ts";
import type { BoundRef, Effect, Fact, Lookup } from "./schema.ts";

/** The canonical key of an action: its type and arguments, key-sorted. */
export function actionKey(action: unknown): string {
  return canonicalJson(action);
}

/** `state` with the derived fields of `lookups` added (a template part that is missing leaves the field out). */
export function withLookups(state: StateRecord, lookups: ReadonlyArray<Lookup>): StateRecord {
  if (lookups.length === 0) return state;
  const out: StateRecord = { ...state };
  for (const lookup of lookups) {
    let missing = false;
    const path = lookup.template.replace(/\{([^}]+)\}/g, (_, ref: string) => {
      const v = state[ref];
      if (v === undefined || Array.isArray(v)) missing = true;
      return String(v);
    });
    const value = missing ? undefined : state[path];
    if (value !== undefined) out[lookup.name] = value;
  }
  return out;
}

function sameValue(a: StateValue | undefined, b: StateValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** Items of `whole` left after taking each item of `part` once, or undefined when `part` is not inside. */
function without(
  whole: ReadonlyArray<StateScalar>,
  part: ReadonlyArray<StateScalar>,
): StateScalar[] | undefined {
  const rest = [...whole];
  for (const item of part) {
    const i = rest.indexOf(item);
    if (i < 0) return undefined;
    rest.splice(i, 1);
  }
  return rest;
}

function listEffect(path: string, before: StateScalar[], after: StateScalar[]): Effect {
  if (after.length > before.length && sameValue(after.slice(0, before.length), before)) {
    return { op: "append", path, value: after.slice(before.length) };
  }
  if (after.length < before.length) {
    const removed = without(before, after);
    if (removed !== undefined && sameValue(without(before, removed), after)) {
      return { op: "remove", path, value: removed };
    }
  }
  return { op: "set", path, value: after };
}

/** The candidate effect that turns `before` into `after` on one path. */
function effectOf(path: string, before: StateValue | undefined, after: StateValue | undefined): Effect {
  if (after === undefined) return { op: "delete", path };
  if (typeof before === "number" && typeof after === "number") {
    const delta = after - before;
    return delta > 0 ? { op: "increment", path, value: delta } : { op: "decrement", path, value: -delta };
  }
  if (Array.isArray(before) && Array.isArray(after)) return listEffect(path, before, after);
  return { op: "set", path, value: after };
}

/** The changed paths of a transition (sorted) and one candidate effect per changed path, in the same order. */
export function diffStates(before: StateRecord, after: StateRecord): { facts: Fact[]; effects: Effect[] } {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const facts: Fact[] = [];
  const effects: Effect[] = [];
  for (const path of paths) {
    const b = before[path];
    const a = after[path];
    if (sameValue(b, a)) continue;
    facts.push({ path, ...(b === undefined ? {} : { before: b }), ...(a === undefined ? {} : { after: a }) });
    effects.push(effectOf(path, b, a));
  }
  return { facts, effects };
}

/** A bound read from the state (`state[ref.path] + ref.offset`) when it holds a number, else `fixed`. */
function boundOf(state: StateRecord, ref: BoundRef | undefined, fixed: number): number {
  const v = ref === undefined ? undefined : state[ref.path];
  return typeof v === "number" ? v + (ref as BoundRef).offset : fixed;
}

function applyOne(state: StateRecord, effect: Effect): void {
  const current = state[effect.path];
  switch (effect.op) {
    case "delete":
      delete state[effect.path];
      return;
    case "set":
      if (effect.value !== undefined) state[effect.path] = effect.value;
      return;
    case "increment":
    case "decrement": {
      if (typeof current !== "number" || typeof effect.value !== "number") return;
      const next = current + (effect.op === "increment" ? effect.value : -effect.value);
      const b = effect.bounds;
      state[effect.path] = b
        ? Math.min(boundOf(state, b.maxFrom, b.max), Math.max(boundOf(state, b.minFrom, b.min), next))
        : next;
      return;
    }
    case "append":
      if (Array.isArray(current) && Array.isArray(effect.value))
        state[effect.path] = [...current, ...effect.value];
      return;
    case "remove":
      if (Array.isArray(current) && Array.isArray(effect.value)) {
        const rest = without(current, effect.value);
        if (rest !== undefined) state[effect.path] = rest;
      }
      return;
  }
}

/** The state that applying `effects` in order to `state` gives (pure; `state` is not changed). */
export function applyEffects(state: StateRecord, effects: ReadonlyArray<Effect>): StateRecord {
  const out: StateRecord = { ...state };
  for (const effect of effects) applyOne(out, effect);
  return out;
}

/** Whether two states hold the same paths with the same values. */
export function sameState(a: StateRecord, b: StateRecord): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The states of a step; undefined when the trace did not carry both. */
export function statesOf(step: TraceStep): { before: StateRecord; after: StateRecord } | undefined {
  if (step.state === undefined || step.nextState === undefined) return undefined;
  return { before: step.state, after: step.nextState };
}
