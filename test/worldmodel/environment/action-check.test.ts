import { describe, expect, it } from "vitest";
import { ActionSchema, MAX_SHELL_COMMAND_CHARS } from "../../../src/core/index.ts";
import { invalidActionError, plainAction } from "../../../src/worldmodel/environment/action-check.ts";

// The fast structural check must accept exactly what the action schema accepts for the types it covers
// (plain objects without undefined members), and never accept what the schema rejects.

const strings = [
  "",
  " ",
  "e1",
  "ab",
  "Enter",
  "ctrl+a",
  "+",
  "a+",
  "a b",
  "e2e4",
  "e7e8q",
  "e9e4",
  "x".repeat(MAX_SHELL_COMMAND_CHARS + 1),
];
const numbers = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY];
const others = [null, true, [], {}, 3];
const values: unknown[] = [...strings, ...numbers, ...others, "up", "left", "ls -la"];
const covered = [
  "click",
  "double_click",
  "right_click",
  "hover",
  "type",
  "key",
  "select",
  "move",
  "uci",
  "shell",
  "done",
  "fail",
];
const fields = [
  "elementId",
  "x",
  "y",
  "text",
  "keys",
  "value",
  "direction",
  "move",
  "command",
  "answer",
  "reason",
  "extra",
];

/** The values of a second field (one of each kind that decides a type's check). */
const SECOND: unknown[] = ["e1", 1, "up", undefined];

/** Candidate actions: each covered type with zero, one or two fields drawn from every value. */
function candidates(): unknown[] {
  const out: unknown[] = [];
  for (const type of covered) {
    out.push({ type });
    for (const f of fields)
      for (const v of values) {
        out.push({ type, [f]: v });
        for (const g of fields) if (g > f) for (const w of SECOND) out.push({ type, [f]: v, [g]: w });
      }
    out.push({ type, x: 1, y: 2, elementId: "e1" });
  }
  return out;
}

describe("plainAction (the pre-check before zod)", () => {
  const all = candidates();

  it("agrees with ActionSchema on every generated action of the covered types", () => {
    let accepted = 0;
    for (const a of all) {
      const schema = ActionSchema.safeParse(a).success;
      const fast = plainAction(a);
      // With an undefined member the check defers (false) and the schema decides; otherwise they agree.
      const exact = Object.values(a as object).every((v) => v !== undefined);
      expect({ action: a, fast }).toEqual({ action: a, fast: exact ? schema : fast && schema });
      if (schema && exact) accepted++;
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it("leaves uncovered types, undefined members, odd objects and non-objects to the schema", () => {
    const deferred: unknown[] = [
      { type: "scroll", direction: "down" },
      { type: "wait" },
      { type: "drag", from: { elementId: "a" }, to: { elementId: "b" } },
      { type: "type", text: "a", elementId: undefined },
      Object.assign(Object.create({ inherited: 1 }), { type: "done" }),
      Object.create({ type: "done" }),
      { type: "toString" },
      { type: "__proto__" },
      "click",
      null,
      [{ type: "done" }],
    ];
    for (const a of deferred) expect(plainAction(a)).toBe(false);
    // The schema still decides them: these are valid, and the environment accepts them.
    for (const a of deferred.slice(0, 4)) expect(invalidActionError(a)).toBeUndefined();
    expect(invalidActionError({ type: "toString" })?.code).toBe("invalid_action");
  });

  it("accepts a null-prototype object exactly when the schema does", () => {
    const a = Object.assign(Object.create(null), { type: "key", keys: "Enter" });
    expect(plainAction(a)).toBe(ActionSchema.safeParse(a).success);
  });
});
