import { describe, expect, it } from "vitest";
import type { Action, StateRecord } from "../../../src/core/index.ts";
import { createSimulator } from "../../../src/worldmodel/index.ts";
import { handBook, handEvidence, handStart } from "./helpers.ts";

const ctx = { taskId: "t" };

/** A page with two text fields; the build saw "abc" typed into field 1 while field 2 had the focus. */
const built: StateRecord = {
  focus: "2",
  "el.1.focused": false,
  "el.2.focused": true,
  "el.1.value": "",
  "el.3.value": "",
};
const typedAbc: Action = { type: "type", text: "abc", elementId: "1" };
const book = handBook([], {
  schemas: {
    actions: [],
    fields: [
      { path: "focus", type: "string", mutable: true },
      { path: "el.*.focused", type: "boolean", mutable: true },
      { path: "el.*.value", type: "string", mutable: true },
    ],
  },
  invariants: { constantWithinEpisode: [], ranges: [], values: [] },
  starts: [handStart("a", built)],
  evidence: [
    handEvidence(
      "a#0",
      0,
      typedAbc,
      [
        { path: "el.1.focused", before: false, after: true },
        { path: "el.1.value", before: "", after: "abc" },
        { path: "el.2.focused", before: true, after: false },
        { path: "focus", before: "2", after: "1" },
      ],
      [
        { op: "set", path: "el.1.focused", value: true },
        { op: "set", path: "el.1.value", value: "abc" },
        { op: "set", path: "el.2.focused", value: false },
        { op: "set", path: "focus", value: "1" },
      ],
    ),
  ],
});

describe("the full system's retrieval fallback lifts the precedent to this action and state", () => {
  // Now field 3 has the focus and "xyz" goes into field 1: no rule matches, so both systems retrieve a#0.
  const now: StateRecord = { ...built, focus: "3", "el.2.focused": false, "el.3.focused": true };
  const typedXyz: Action = { type: "type", text: "xyz", elementId: "1" };

  it("retrieval copies the precedent's values and paths as they are", async () => {
    const step = await createSimulator(book, { system: "retrieval" }).step(now, typedXyz, ctx, 0);
    expect(step.trace.fired).toEqual(["a#0"]);
    expect(step.state["el.1.value"]).toBe("abc");
    expect(step.state["el.3.focused"]).toBe(true);
  });

  it("full takes the typed text from the action and unfocuses the element focused now", async () => {
    const step = await createSimulator(book, { system: "full" }).step(now, typedXyz, ctx, 0);
    expect(step.trace.fired).toEqual(["a#0"]);
    expect(step.state).toEqual({
      ...now,
      focus: "1",
      "el.1.focused": true,
      "el.1.value": "xyz",
      "el.3.focused": false,
    });
  });

  it("an action on another element borrows the precedent with its paths and values renamed", async () => {
    const other: Action = { type: "type", text: "q", elementId: "3" };
    const step = await createSimulator(book, { system: "full" }).step(built, other, ctx, 0);
    expect(step.state).toMatchObject({
      focus: "3",
      "el.3.focused": true,
      "el.3.value": "q",
      "el.2.focused": false,
    });
  });
});
