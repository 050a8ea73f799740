import { expect } from "vitest";
import type { Observation } from "../../src/core/observation.ts";
import { type StateRecord, StateRecordSchema, type StateViewer } from "../../src/core/state-view.ts";
import type { Task } from "../../src/core/task.ts";

/** Whether `path` matches a declared field pattern (`*` is one path segment). */
export function matchesField(viewer: StateViewer, path: string): boolean {
  return viewer.fields.some((f) => {
    const pattern = f.path
      .split(".")
      .map((s) => (s === "*" ? "[^.]+" : s.replace(/[$()*+.?[\\\]^{|}]/g, "\\$&")))
      .join("\\.");
    return new RegExp(`^${pattern}$`).test(path);
  });
}

/**
 * The view of `o` is a valid, JSON-serialisable, stable record of declared fields, and rendering it
 * gives `o`'s `keys` back (compared as JSON). Returns the view.
 */
export function checkRoundTrip(
  viewer: StateViewer,
  o: Observation,
  keys: ReadonlyArray<keyof Observation>,
  task?: Task,
): StateRecord {
  const state = viewer.view(o, task);
  expect(StateRecordSchema.safeParse(state).success).toBe(true);
  expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  expect(viewer.view(structuredClone(o), task)).toEqual(state);
  for (const path of Object.keys(state)) expect(matchesField(viewer, path), path).toBe(true);
  const back = viewer.render(state, o, task);
  for (const key of keys)
    expect(JSON.parse(JSON.stringify(back[key] ?? null)), String(key)).toEqual(
      JSON.parse(JSON.stringify(o[key] ?? null)),
    );
  return state;
}
