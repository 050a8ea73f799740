import { describe, expect, it } from "vitest";
import type { StateRecord } from "../../src/core/index.ts";
import { induceOutcomeRules, type OutcomeSample } from "../../src/worldmodel/worldbook/outcome-rules.ts";

/** Samples from next states: [state, terminated, reward (default 0)]. */
function samples(rows: Array<[StateRecord, boolean, number?]>): OutcomeSample[] {
  return rows.map(([after, terminated, reward]) => ({ after, terminated, reward: reward ?? 0 }));
}

describe("outcome rules: the deciding next-state condition", () => {
  it("takes the path with the fewest values, then the first by name, and sorts the values", () => {
    const rows = samples([
      [{ b: "x", a: 1, c: "goal" }, true, 1],
      [{ b: "y", a: 2, c: "hole" }, true],
      [{ b: "z", a: 3, c: "ice" }, false],
      [{ b: "w", a: 4, c: "ice" }, false],
    ]);
    const rules = induceOutcomeRules(rows);
    // `a`, `b` and `c` each decide the end with two values: the first by name, `a`, is taken.
    expect(rules).toContainEqual({
      field: "terminated",
      value: true,
      when: { path: "a", op: "in", value: [1, 2] },
      support: 2,
    });
    // The reward 1 (not the most common one) on one record: one value, the first path by name.
    expect(rules).toContainEqual({
      field: "reward",
      value: 1,
      when: { path: "a", op: "eq", value: 1 },
      support: 1,
    });
  });

  it("skips a path absent or a list on a hit; a list or an absent value on a miss does not count", () => {
    const rows = samples([
      [{ a: [1], b: "end", c: 1 }, true],
      [{ b: "end", c: 2 }, true],
      [{ a: 1, b: ["end"], c: 3 }, false],
      [{ a: 2, c: 4 }, false],
    ]);
    // `a` is a list on a hit and absent on another: out. `b` holds "end" on both hits, a list and nothing
    // on the misses: it decides. `c` decides too, but with two values.
    expect(induceOutcomeRules(rows)).toEqual([
      { field: "terminated", value: true, when: { path: "b", op: "eq", value: "end" }, support: 2 },
    ]);
  });

  it("equates values JSON writes alike (NaN and null) and finds no rule when a hit's value shows on a miss", () => {
    const alike = samples([
      [{ a: Number.NaN, b: 0 }, true],
      [{ a: null, b: 1 }, true],
      [{ a: 5, b: 0 }, false],
    ]);
    // NaN and null are one value: `a` decides with one value; `b` (0 on a miss) cannot.
    const [rule] = induceOutcomeRules(alike);
    expect(rule?.when.path).toBe("a");
    expect(rule?.when.op).toBe("eq");
    const none = samples([
      [{ a: 1 }, true],
      [{ a: 1 }, false],
    ]);
    expect(induceOutcomeRules(none)).toEqual([]);
  });

  it("consequence rules decide each value of a derived path on the other paths, not on the derived ones", () => {
    const rows = samples([
      [{ tile: "H", status: "hole", done: true }, true],
      [{ tile: "G", status: "goal", done: true }, true, 1],
      [{ tile: "F", status: "frozen", done: false }, false],
      [{ tile: "F", status: "frozen", done: false }, false],
    ]);
    const state = induceOutcomeRules(rows, ["status", "done"]).filter((r) => r.field === "state");
    expect(state).toEqual([
      {
        field: "state",
        path: "done",
        value: false,
        when: { path: "tile", op: "eq", value: "F" },
        support: 2,
      },
      {
        field: "state",
        path: "done",
        value: true,
        when: { path: "tile", op: "in", value: ["G", "H"] },
        support: 2,
      },
      {
        field: "state",
        path: "status",
        value: "frozen",
        when: { path: "tile", op: "eq", value: "F" },
        support: 2,
      },
      {
        field: "state",
        path: "status",
        value: "goal",
        when: { path: "tile", op: "eq", value: "G" },
        support: 1,
      },
      {
        field: "state",
        path: "status",
        value: "hole",
        when: { path: "tile", op: "eq", value: "H" },
        support: 1,
      },
    ]);
  });
});
