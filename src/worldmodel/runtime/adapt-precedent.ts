import type { StateRecord } from "../../core/index.ts";
import type { ActionArgs } from "../worldbook/conditions.ts";
import type { Effect } from "../worldbook/schema.ts";
import type { Precedent, WorldbookIndex } from "./retrieve.ts";

/** The action of each build evidence id, parsed once per index. */
const actions = new WeakMap<WorldbookIndex, Map<string, ActionArgs>>();

function actionOf(index: WorldbookIndex, id: string): ActionArgs | undefined {
  let map = actions.get(index);
  if (!map) {
    map = new Map(index.book.evidence.map((e) => [e.id, JSON.parse(e.action) as ActionArgs]));
    actions.set(index, map);
  }
  return map.get(id);
}

const scalar = (v: unknown): v is string | number => typeof v === "string" || typeof v === "number";

/**
 * The argument values of the precedent's own action that differ in this one (`"d5n8"` → `"vKyK"` for a
 * typed text, `"15"` → `"17"` for an element id), as value renames.
 */
function argumentRenames(from: ActionArgs | undefined, to: ActionArgs): Map<string, string> {
  const renames = new Map<string, string>();
  if (!from) return renames;
  for (const [name, value] of Object.entries(from)) {
    const target = to[name];
    if (name !== "type" && scalar(value) && scalar(target) && value !== target)
      renames.set(String(value), String(target));
  }
  return renames;
}

/**
 * Pointer fields: a string field of the precedent's before state (web's `focus`) whose value names a
 * segment of one of its effect paths, and which holds another value now — the effect meant "the
 * element focused then", so it is moved to the element focused now (`el.16.focused` → `el.14.focused`).
 */
function pointerRenames(
  precedent: Precedent,
  state: StateRecord,
  taken: ReadonlyMap<string, string>,
): Map<string, string> {
  const renames = new Map<string, string>();
  const before = precedent.before;
  if (!before) return renames;
  const segments = new Set(precedent.effects.flatMap((e) => e.path.split(".")));
  for (const [path, was] of Object.entries(before)) {
    const now = state[path];
    if (typeof was !== "string" || typeof now !== "string" || was === now) continue;
    if (!segments.has(was) || taken.has(was) || renames.has(was)) continue;
    renames.set(was, now);
  }
  return renames;
}

function renamePath(path: string, renames: ReadonlyMap<string, string>): string {
  return renames.size === 0
    ? path
    : path
        .split(".")
        .map((part) => renames.get(part) ?? part)
        .join(".");
}

/**
 * A precedent's effects lifted to this action and state, the abstraction the full system adds to
 * retrieval: set-values equal to an argument of the precedent's action take this action's argument (the
 * typed text, the clicked element), and paths through a pointer field follow its current value (see
 * `pointerRenames`). Paths through action arguments are already renamed when the precedent was borrowed
 * from another action of the same type. Pure retrieval copies the effects as they are.
 */
export function adaptPrecedentEffects(
  precedent: Precedent,
  index: WorldbookIndex,
  state: StateRecord,
  args: ActionArgs,
): Effect[] {
  const values = precedent.fromMemory
    ? new Map<string, string>()
    : argumentRenames(actionOf(index, precedent.id), args);
  const pointers = pointerRenames(precedent, state, values);
  if (values.size === 0 && pointers.size === 0) return [...precedent.effects];
  return precedent.effects.map((e) => {
    const path = renamePath(e.path, pointers);
    const renamed = typeof e.value === "string" ? (values.get(e.value) ?? pointers.get(e.value)) : undefined;
    if (path === e.path && renamed === undefined) return e;
    return { ...e, path, ...(renamed === undefined ? {} : { value: renamed }) };
  });
}
