import { describe, expect, it } from "vitest";
import { recordFamilyTraces } from "../../../src/experiments/worldmodel/record.ts";
import { splitTraces } from "../../../src/worldmodel/index.ts";

describe("recordFamilyTraces", () => {
  it("records slippery FrozenLake episodes as trace steps with states, the same each time", async () => {
    const spec = {
      name: "fl-test",
      family: "frozenlake" as const,
      envOptions: { slippery: true, slipRatio: [0, 1] },
      tasks: ["4x4"],
      batches: [{ policy: "random" as const, episodes: 6 }],
      seed: "t1",
    };
    const a = await recordFamilyTraces(spec);
    const b = await recordFamilyTraces(spec);
    expect(a.steps.length).toBeGreaterThan(6);
    expect(a.runs[0]).toMatchObject({ runId: "fl-test-0", episodes: 6 });
    expect(new Set(a.steps.map((s) => s.episodeId)).size).toBe(6);
    expect(a.steps.every((s) => s.state?.["agent.row"] !== undefined && s.nextState !== undefined)).toBe(
      true,
    );
    expect(a.steps.every((s) => typeof s.seed === "number")).toBe(true);
    expect(JSON.stringify(b.steps)).toBe(JSON.stringify(a.steps));
    const split = splitTraces(a.steps, { seed: 1 });
    expect(split.manifest.episodes.test.length).toBeGreaterThan(0);
  });

  it("mixes oracle and random moves on chess puzzles without an engine", async () => {
    const rec = await recordFamilyTraces({
      name: "chess-test",
      family: "chess",
      envOptions: { opponent: "solution", offLineOpponent: "random" },
      batches: [
        { policy: "oracle", episodes: 1 },
        { policy: "random", episodes: 1 },
      ],
      seed: "t2",
    });
    expect(rec.runs.map((r) => r.runId)).toEqual(["chess-test-0", "chess-test-1"]);
    expect(rec.runs.every((r) => r.episodes === rec.tasks.length)).toBe(true);
    expect(rec.steps.every((s) => typeof s.state?.["puzzle.id"] === "string")).toBe(true);
  });

  it("refuses a spec without batches, naming the field", async () => {
    await expect(
      recordFamilyTraces({ name: "x", family: "frozenlake", batches: [], seed: "s" }),
    ).rejects.toThrow(/batches/);
  });
});
