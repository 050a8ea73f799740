import { describe, expect, it } from "vitest";
import type { GridDirection } from "../../../src/core/index.ts";
import { createRandom } from "../../../src/core/index.ts";
import {
  type Cell,
  createFrozenLakeEnvironment,
  DETERMINISTIC_DYNAMICS,
  DIRECTIONS,
  GYMNASIUM_SLIPPERY_DYNAMICS,
  holeFallProbabilities,
  isGoodMove,
  moveOnce,
  parseFrozenLakeConfig,
  parseMap,
  type SlipDynamics,
  sampleTransition,
  standardMap,
  transitionProbabilities,
  turnLeft,
  turnRight,
} from "../../../src/envs/frozenlake/index.ts";

const OPEN_5 = parseMap("open-5", ["SFFFF", "FFFFF", "FFFFF", "FFFFF", "FFFFG"]);
const CENTRE: Cell = { row: 2, col: 2 };
const ASYMMETRIC: SlipDynamics = parseFrozenLakeConfig({ perpendicular: { left: 0, right: 2 / 3 } }).dynamics;
const BACKWARDS: Record<GridDirection, GridDirection> = {
  left: "right",
  right: "left",
  up: "down",
  down: "up",
};

const key = (c: Cell) => `${c.row},${c.col}`;

/** |observed - n p| within `sigmas` binomial standard deviations; exact zero when p = 0. */
function expectBinomial(observed: number, n: number, p: number, sigmas = 5): void {
  if (p === 0) {
    expect(observed).toBe(0);
    return;
  }
  const sd = Math.sqrt(n * p * (1 - p));
  expect(Math.abs(observed - n * p)).toBeLessThanOrEqual(sigmas * sd);
}

describe("frozenlake turns", () => {
  it("left and right are relative to the intended heading (Gymnasium's (a+1)%4 and (a-1)%4)", () => {
    expect(DIRECTIONS.map(turnLeft)).toEqual(["down", "right", "up", "left"]);
    expect(DIRECTIONS.map(turnRight)).toEqual(["up", "left", "down", "right"]);
  });
});

describe("frozenlake transition probabilities", () => {
  it("interior cell: intended and two perpendicular cells, never backwards", () => {
    const dist = transitionProbabilities(OPEN_5, CENTRE, "up", GYMNASIUM_SLIPPERY_DYNAMICS);
    expect(dist.map(key)).toEqual(["1,2", "2,1", "2,3"]);
    for (const d of dist) expect(d.probability).toBeCloseTo(1 / 3, 12);
    const asym = transitionProbabilities(OPEN_5, CENTRE, "up", ASYMMETRIC);
    expect(asym.map((d) => [key(d), d.probability])).toEqual([
      ["1,2", expect.closeTo(1 / 3, 12)],
      ["2,3", expect.closeTo(2 / 3, 12)],
    ]);
  });

  it("walls keep the position and merge outcomes", () => {
    const dist = transitionProbabilities(OPEN_5, { row: 0, col: 0 }, "up", GYMNASIUM_SLIPPERY_DYNAMICS);
    expect(dist.map((d) => [key(d), d.probability])).toEqual([
      ["0,0", expect.closeTo(2 / 3, 12)],
      ["0,1", expect.closeTo(1 / 3, 12)],
    ]);
    expect(moveOnce(OPEN_5, { row: 4, col: 4 }, "right")).toEqual({ row: 4, col: 4 });
    expect(moveOnce(OPEN_5, { row: 0, col: 3 }, "up")).toEqual({ row: 0, col: 3 });
  });

  it("non-slippery: one next cell with probability 1", () => {
    for (const d of DIRECTIONS) {
      const dist = transitionProbabilities(OPEN_5, CENTRE, d, DETERMINISTIC_DYNAMICS);
      expect(dist).toEqual([{ ...moveOnce(OPEN_5, CENTRE, d), probability: 1 }]);
    }
  });

  it("holes and goals are absorbing", () => {
    const map = standardMap("4x4");
    expect(transitionProbabilities(map, { row: 1, col: 1 }, "down", GYMNASIUM_SLIPPERY_DYNAMICS)).toEqual([
      { row: 1, col: 1, probability: 1 },
    ]);
  });
});

describe("frozenlake hole-fall probabilities (hand-computed on the 4x4 map)", () => {
  const map = standardMap("4x4");
  // SFFF / FHFH / FFFH / HFFG
  it("from (1,0), symmetric 1/3", () => {
    const p = holeFallProbabilities(map, { row: 1, col: 0 }, GYMNASIUM_SLIPPERY_DYNAMICS);
    // left: wall | down (2,0) | up (0,0) -> 0; down: (2,0) | right-slip... (1,1)=H -> 1/3;
    // right: (1,1)=H -> 1/3; up: (0,0) | left wall | right (1,1)=H -> 1/3.
    expect(p.left).toBe(0);
    expect(p.down).toBeCloseTo(1 / 3, 12);
    expect(p.right).toBeCloseTo(1 / 3, 12);
    expect(p.up).toBeCloseTo(1 / 3, 12);
    expect(isGoodMove(map, { row: 1, col: 0 }, "left", GYMNASIUM_SLIPPERY_DYNAMICS)).toBe(true);
    expect(isGoodMove(map, { row: 1, col: 0 }, "down", GYMNASIUM_SLIPPERY_DYNAMICS)).toBe(false);
  });

  it("from (1,0), the paper's asymmetric (0, 2/3)", () => {
    const p = holeFallProbabilities(map, { row: 1, col: 0 }, ASYMMETRIC);
    // down slips only to its right = west (wall); right slips to its right = down (2,0); up slips east.
    expect(p).toEqual({ left: 0, down: 0, right: expect.closeTo(1 / 3, 12), up: expect.closeTo(2 / 3, 12) });
    expect(isGoodMove(map, { row: 1, col: 0 }, "down", ASYMMETRIC)).toBe(true);
  });

  it("from (2,2), symmetric: every move but left risks the hole at (2,3)", () => {
    const p = holeFallProbabilities(map, { row: 2, col: 2 }, GYMNASIUM_SLIPPERY_DYNAMICS);
    expect(p.left).toBe(0);
    for (const d of ["down", "right", "up"] as const) expect(p[d]).toBeCloseTo(1 / 3, 12);
  });

  it("non-slippery: 0 or 1", () => {
    const p = holeFallProbabilities(map, { row: 1, col: 0 }, DETERMINISTIC_DYNAMICS);
    expect(p).toEqual({ left: 0, down: 0, right: 1, up: 0 });
  });
});

describe("frozenlake empirical transition frequencies", () => {
  for (const [name, dynamics] of [
    ["symmetric 1/3", GYMNASIUM_SLIPPERY_DYNAMICS],
    ["asymmetric (0, 2/3)", ASYMMETRIC],
  ] as const) {
    it(`${name}: 100,000 sampled moves match the configured probabilities`, () => {
      const random = createRandom("test", "frozenlake-frequencies", name);
      const n = 100_000;
      const counts = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const direction = DIRECTIONS[i % 4] as GridDirection;
        const t = sampleTransition(OPEN_5, CENTRE, direction, dynamics, random);
        const k = `${direction}>${key(t.cell)}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      const perDirection = n / 4;
      for (const direction of DIRECTIONS) {
        const expected = [
          [direction, dynamics.intended],
          [turnLeft(direction), dynamics.left],
          [turnRight(direction), dynamics.right],
          [BACKWARDS[direction], 0],
        ] as const;
        for (const [actual, p] of expected) {
          const cell = moveOnce(OPEN_5, CENTRE, actual);
          expectBinomial(counts.get(`${direction}>${key(cell)}`) ?? 0, perDirection, p);
        }
      }
    });
  }

  it("the environment's own steps follow the asymmetric model (20,000 seeded episodes)", async () => {
    const env = createFrozenLakeEnvironment({
      perpendicular: { left: 0, right: 2 / 3 },
      suite: {
        standard: [],
        randomMaps: { count: 0 },
        maps: [{ id: "centre", rows: ["FFFFF", "FFFFF", "FFSFF", "FFFFF", "FFFFG"] }],
      },
    });
    const n = 20_000;
    const counts: Record<string, number> = {};
    for (let seed = 0; seed < n; seed++) {
      await env.reset({ taskId: "centre", seed });
      const r = await env.step({ type: "move", direction: "up" });
      const actual = r.info.actual as string;
      counts[actual] = (counts[actual] ?? 0) + 1;
      expect(r.info.slipped).toBe(actual !== "up");
    }
    expectBinomial(counts.up ?? 0, n, 1 / 3);
    expectBinomial(counts.right ?? 0, n, 2 / 3);
    expect(counts.left ?? 0).toBe(0);
    expect(counts.down ?? 0).toBe(0);
    await env.close();
  });
});
