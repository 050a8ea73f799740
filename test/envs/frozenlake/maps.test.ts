import { describe, expect, it } from "vitest";
import { createRandom, isRehearsalError } from "../../../src/core/index.ts";
import {
  createFrozenLakeSuite,
  FROZENLAKE_FAMILY,
  FROZENLAKE_ORACLE_KIND,
  FROZENLAKE_VERIFIER_KIND,
  generateRandomMap,
  isGoalReachable,
  parseMap,
  parseRenderedGrid,
  randomMapForSeed,
  renderGrid,
  STANDARD_MAPS,
  shortestSafePath,
  standardMap,
} from "../../../src/envs/frozenlake/index.ts";

function userErrorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isRehearsalError(e) && e.category === "user") return e.code;
    throw e;
  }
  return undefined;
}

describe("frozenlake standard maps", () => {
  it("are Gymnasium's 4x4 and 8x8 maps exactly", () => {
    expect(STANDARD_MAPS["4x4"]).toEqual(["SFFF", "FHFH", "FFFH", "HFFG"]);
    expect(STANDARD_MAPS["8x8"]).toEqual([
      "SFFFFFFF",
      "FFFFFFFF",
      "FFFHFFFF",
      "FFFFFHFF",
      "FFFHFFFF",
      "FHHFFFHF",
      "FHFFHFHF",
      "FFFHFFFG",
    ]);
    const m = standardMap("8x8");
    expect(m.size).toBe(8);
    expect(m.start).toEqual({ row: 0, col: 0 });
  });

  it("render with P, _, O, G and parse back", () => {
    const m = standardMap("4x4");
    expect(renderGrid(m, { row: 0, col: 0 })).toBe("P___\n_O_O\n___O\nO__G");
    const text = renderGrid(m, { row: 2, col: 1 });
    expect(text).toBe("____\n_O_O\n_P_O\nO__G");
    expect(parseRenderedGrid(text).player).toEqual({ row: 2, col: 1 });
  });

  it("shortest safe paths", () => {
    expect(shortestSafePath(standardMap("4x4"), { row: 0, col: 0 })).toHaveLength(6);
    expect(shortestSafePath(standardMap("8x8"), { row: 0, col: 0 })).toHaveLength(14);
    expect(shortestSafePath(parseMap("walled", ["SH", "HG"]), { row: 0, col: 0 })).toBeNull();
    expect(shortestSafePath(standardMap("4x4"), { row: 3, col: 3 })).toEqual([]);
  });

  it("bad maps are user errors", () => {
    expect(userErrorCode(() => parseMap("x", ["SFF", "FFG"]))).toBe("frozenlake.bad_map");
    expect(userErrorCode(() => parseMap("x", ["SS", "FG"]))).toBe("frozenlake.bad_map");
    expect(userErrorCode(() => parseMap("x", ["SF", "FF"]))).toBe("frozenlake.bad_map");
    expect(userErrorCode(() => parseMap("x", ["SX", "FG"]))).toBe("frozenlake.bad_map");
  });
});

describe("frozenlake random maps", () => {
  it("have start top-left, goal bottom-right and a reachable goal", () => {
    for (let seed = 0; seed < 200; seed++) {
      const size = 3 + (seed % 6);
      const rows = randomMapForSeed(size, seed);
      expect(rows).toHaveLength(size);
      expect(rows[0]?.[0]).toBe("S");
      expect(rows[size - 1]?.[size - 1]).toBe("G");
      expect(rows.join("").replace(/[SFHG]/g, "")).toBe("");
      expect(isGoalReachable(rows)).toBe(true);
      expect(shortestSafePath(parseMap("r", rows), { row: 0, col: 0 })).not.toBeNull();
    }
  });

  it("are identical for the same seed and differ across seeds", () => {
    expect(generateRandomMap(6, createRandom("m", 7))).toEqual(generateRandomMap(6, createRandom("m", 7)));
    const distinct = new Set(Array.from({ length: 20 }, (_, i) => randomMapForSeed(5, i).join("/")));
    expect(distinct.size).toBeGreaterThanOrEqual(18);
    // Pinned so that a change to generation (or to the core Random) cannot go unnoticed.
    expect(createFrozenLakeSuite().map("random-5-0").rows).toEqual([
      "SFFFH",
      "FFFHF",
      "FFHHF",
      "HFFFF",
      "FFFFG",
    ]);
  });

  it("holes appear at about 1 - p (slightly fewer: unreachable boards are rejected)", () => {
    let holes = 0;
    let cells = 0;
    for (let seed = 0; seed < 100; seed++) {
      const rows = randomMapForSeed(8, seed);
      holes += rows.join("").split("H").length - 1;
      cells += 62;
    }
    expect(holes / cells).toBeGreaterThan(0.12);
    expect(holes / cells).toBeLessThan(0.22);
  });

  it("bad sizes and probabilities are user errors", () => {
    expect(userErrorCode(() => generateRandomMap(1, createRandom("x")))).toBe("frozenlake.bad_map_size");
    expect(userErrorCode(() => generateRandomMap(4, createRandom("x"), 0))).toBe(
      "frozenlake.bad_frozen_probability",
    );
  });
});

describe("frozenlake suite", () => {
  it("defaults: standard maps for training, 100 random 5x5 maps split 50/50", () => {
    const suite = createFrozenLakeSuite();
    const tasks = suite.list();
    expect(tasks).toHaveLength(102);
    expect(tasks.slice(0, 3).map((t) => t.id)).toEqual(["4x4", "8x8", "random-5-0"]);
    expect(tasks.filter((t) => t.split === "heldout").map((t) => t.id)).toEqual(
      Array.from({ length: 50 }, (_, i) => `random-5-${50 + i}`),
    );
    for (const t of tasks) {
      expect(t.family).toBe(FROZENLAKE_FAMILY);
      expect(t.verifier.kind).toBe(FROZENLAKE_VERIFIER_KIND);
      expect(t.oracle?.kind).toBe(FROZENLAKE_ORACLE_KIND);
    }
    expect(suite.map("4x4").rows).toEqual(STANDARD_MAPS["4x4"]);
  });

  it("is configurable and reproducible", () => {
    const opts = {
      standard: ["4x4" as const],
      standardSplit: "heldout" as const,
      randomMaps: [
        { size: 4, count: 3, seedBase: "a", heldoutCount: 1 },
        { size: 6, count: 2, seedBase: 9, heldoutCount: 0 },
      ],
      maps: [{ id: "tiny", rows: ["SF", "FG"] }],
    };
    const a = createFrozenLakeSuite(opts);
    expect(a.list().map((t) => `${t.id}:${t.split}`)).toEqual([
      "4x4:heldout",
      "random-4-0:train",
      "random-4-1:train",
      "random-4-2:heldout",
      "random-6-0:train",
      "random-6-1:train",
      "tiny:train",
    ]);
    expect(createFrozenLakeSuite(opts).list()).toEqual(a.list());
    const otherBase = createFrozenLakeSuite({ ...opts, randomMaps: { size: 4, count: 3, seedBase: "b" } });
    expect(otherBase.map("random-4-0").rows).not.toEqual(a.map("random-4-0").rows);
  });

  it("unknown ids and bad options are user errors", () => {
    const suite = createFrozenLakeSuite({ randomMaps: { count: 2 } });
    expect(userErrorCode(() => suite.get("nope"))).toBe("task.unknown");
    expect(userErrorCode(() => createFrozenLakeSuite({ randomMaps: { count: 2, heldoutCount: 3 } }))).toBe(
      "frozenlake.bad_suite",
    );
    expect(userErrorCode(() => createFrozenLakeSuite({ maps: [{ id: "4x4", rows: ["SF", "FG"] }] }))).toBe(
      "frozenlake.duplicate_task",
    );
    expect(userErrorCode(() => createFrozenLakeSuite({ maps: [{ id: "bad", rows: ["SF", "FF"] }] }))).toBe(
      "frozenlake.bad_map",
    );
    expect(userErrorCode(() => createFrozenLakeSuite({ extra: 1 } as never))).toBe("frozenlake.bad_suite");
  });
});
