import { UserError } from "../../core/errors.ts";
import { createRandom, type Random } from "../../core/random.ts";

/** Gymnasium's default probability that a generated cell is frozen. */
export const DEFAULT_FROZEN_PROBABILITY = 0.8;

/** Gives up after this many rejected boards (only reachable with a tiny frozen probability). */
const MAX_ATTEMPTS = 100_000;

const STEPS: ReadonlyArray<readonly [number, number]> = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

/** Whether some goal G is reachable from the start S through non-hole cells (4-neighbourhood BFS). */
export function isGoalReachable(rows: ReadonlyArray<string>): boolean {
  const size = rows.length;
  let start: [number, number] | undefined;
  rows.forEach((r, row) => {
    const col = r.indexOf("S");
    if (col >= 0 && start === undefined) start = [row, col];
  });
  if (start === undefined) return false;
  const seen = new Set<number>([start[0] * size + start[1]]);
  const queue: Array<[number, number]> = [start];
  for (let head = 0; head < queue.length; head++) {
    const [r, c] = queue[head] as [number, number];
    for (const [dr, dc] of STEPS) {
      const nr = r + dr;
      const nc = c + dc;
      const tile = rows[nr]?.[nc];
      if (tile === undefined || tile === "H") continue;
      if (tile === "G") return true;
      const key = nr * size + nc;
      if (!seen.has(key)) {
        seen.add(key);
        queue.push([nr, nc]);
      }
    }
  }
  return false;
}

/**
 * Gymnasium's `generate_random_map`: every cell frozen with probability `p` (else a hole), start at the
 * top-left, goal at the bottom-right, boards redrawn until the goal is reachable. Draws from `random`, so
 * the same generator state always gives the same map.
 */
export function generateRandomMap(size: number, random: Random, p = DEFAULT_FROZEN_PROBABILITY): string[] {
  if (!Number.isInteger(size) || size < 2 || size > 256) {
    throw new UserError(
      "frozenlake.bad_map_size",
      `generateRandomMap needs an integer size in [2, 256], got ${size}.`,
    );
  }
  if (!(p > 0 && p <= 1)) {
    throw new UserError(
      "frozenlake.bad_frozen_probability",
      `generateRandomMap needs a frozen probability in (0, 1], got ${p}.`,
    );
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const board: string[][] = [];
    for (let r = 0; r < size; r++) {
      const row: string[] = [];
      for (let c = 0; c < size; c++) row.push(random.next() < p ? "F" : "H");
      board.push(row);
    }
    (board[0] as string[])[0] = "S";
    (board[size - 1] as string[])[size - 1] = "G";
    const rows = board.map((r) => r.join(""));
    if (isGoalReachable(rows)) return rows;
  }
  throw new UserError(
    "frozenlake.unreachable_maps",
    `generateRandomMap found no map of size ${size} with a reachable goal in ${MAX_ATTEMPTS} tries at ` +
      `frozen probability ${p}; raise the probability.`,
  );
}

/**
 * The random map for a map seed: `generateRandomMap(size, createRandom("frozenlake/map", seed, size), p)`.
 * The same seed, size and p give the same map on every machine.
 */
export function randomMapForSeed(
  size: number,
  seed: string | number,
  p = DEFAULT_FROZEN_PROBABILITY,
): string[] {
  return generateRandomMap(size, createRandom("frozenlake/map", seed, size), p);
}
