import { describe, expect, it } from "vitest";
import type { StateRecord } from "../../src/core/index.ts";
import { buildWorldbook, type TraceStep } from "../../src/worldmodel/index.ts";
import { describeDiff, diffWorldbooks, setChange } from "../../src/worldmodel/worldbook/diff.ts";

/** One-step episodes of a toy family: `move up` moves when the door is open; `wait` changes nothing. */
function episodes(
  doors: ReadonlyArray<string>,
  source: string,
  action: "move" | "wait" = "move",
): TraceStep[] {
  return doors.map((door, e) => {
    const state: StateRecord = { pos: 0, door };
    const moved = action === "move" && door === "open";
    return {
      episodeId: `${source}-${e}`,
      taskId: "t",
      family: "toy",
      step: 0,
      observation: { text: `door ${door}` },
      action: action === "move" ? { type: "move", direction: "up" } : { type: "wait", ms: 0 },
      nextObservation: { text: `door ${door}` },
      reward: 0,
      terminated: false,
      truncated: true,
      state,
      nextState: { ...state, pos: moved ? 1 : 0 },
      source: `file:${source}.jsonl`,
    };
  });
}

describe("diffWorldbooks", () => {
  it("is identical for the same traces, in any order", () => {
    const steps = episodes(["open", "locked", "open"], "a");
    const d = diffWorldbooks(buildWorldbook(steps), buildWorldbook([...steps].reverse()));
    expect(d.identical).toBe(true);
    expect(d.files).toEqual([]);
    expect(describeDiff(d)).toEqual(["identical: every file has the same content"]);
  });

  it("reports rules added and changed (support, probabilities, status), sources, episodes and schemas", () => {
    const a = buildWorldbook(episodes(["open", "open", "locked"], "a"), { minSupport: 4 });
    const b = buildWorldbook(
      [...episodes(["open", "open", "open", "locked"], "b"), ...episodes(["open"], "w", "wait")],
      { minSupport: 4 },
    );
    const d = diffWorldbooks(a, b);
    expect(d.identical).toBe(false);
    expect(d.files).toEqual(expect.arrayContaining(["manifest.json", "rules.json", "schemas.json"]));
    expect(d.manifest.sources).toEqual({
      added: ["file:b.jsonl", "file:w.jsonl"],
      removed: ["file:a.jsonl"],
    });
    expect(d.manifest.changes).toContainEqual({ field: "episodes", before: 3, after: 5 });
    const added = b.rules.filter((r) => !a.rules.some((x) => x.id === r.id)).map((r) => r.id);
    expect(d.rules.added).toEqual(added.sort());
    expect(added.some((id) => id.startsWith("wait"))).toBe(true);
    const changed = new Map(d.rules.changed.map((c) => [c.key, new Map(c.changes.map((f) => [f.field, f]))]));
    const moving = a.rules.find((r) => r.outcomes.some((o) => o.effects.length > 0))!;
    const fields = changed.get(moving.id);
    expect(fields?.get("support")).toMatchObject({ before: moving.support, after: moving.support + 1 });
    expect(fields?.get("status")).toEqual({ field: "status", before: "tentative", after: "supported" });
    expect(d.schemas.actions.added).toEqual(["wait"]);
    const lines = describeDiff(d);
    expect(lines).toContain(`+ rule ${added.find((id) => id.startsWith("wait"))}`);
    expect(lines).toContain(`~ rule ${moving.id}: status "tentative" → "supported"`);
  });

  it("setChange lists what only one side has, sorted", () => {
    expect(setChange(["b", "a", "c"], ["d", "a"])).toEqual({ added: ["d"], removed: ["b", "c"] });
  });
});
