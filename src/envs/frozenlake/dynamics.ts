import type { GridDirection } from "../../core/action.ts";
import type { Random } from "../../core/random.ts";
import { type Cell, type FrozenLakeMap, isTerminalTile, tileAt } from "./map.ts";

/** Gymnasium's action order: 0 left, 1 down, 2 right, 3 up. */
export const DIRECTIONS: ReadonlyArray<GridDirection> = ["left", "down", "right", "up"];

/**
 * Resolved slip model, as absolute probabilities that sum to 1. `left`/`right` are relative to the
 * intended direction, as seen by a walker facing it: moving up, left is left; moving down, left is right
 * (east); moving left, left is down; moving right, left is up. (Gymnasium's `(a + 1) % 4` is this
 * left turn, `(a - 1) % 4` the right turn.) Never backwards.
 */
export interface SlipDynamics {
  intended: number;
  left: number;
  right: number;
}

/** Non-slippery ice: every move goes where intended. */
export const DETERMINISTIC_DYNAMICS: SlipDynamics = Object.freeze({ intended: 1, left: 0, right: 0 });
/** Gymnasium's slippery default: 1/3 each for intended, left and right. */
export const GYMNASIUM_SLIPPERY_DYNAMICS: SlipDynamics = Object.freeze({
  intended: 1 / 3,
  left: 1 / 3,
  right: 1 / 3,
});

const DELTA: Readonly<Record<GridDirection, readonly [number, number]>> = {
  left: [0, -1],
  down: [1, 0],
  right: [0, 1],
  up: [-1, 0],
};

/** The direction a walker facing `direction` reaches by turning left (counter-clockwise on screen). */
export function turnLeft(direction: GridDirection): GridDirection {
  return DIRECTIONS[(DIRECTIONS.indexOf(direction) + 1) % 4] as GridDirection;
}

/** The direction a walker facing `direction` reaches by turning right (clockwise on screen). */
export function turnRight(direction: GridDirection): GridDirection {
  return DIRECTIONS[(DIRECTIONS.indexOf(direction) + 3) % 4] as GridDirection;
}

/** One deterministic move; a move into the map's edge keeps the position (Gymnasium). */
export function moveOnce(map: FrozenLakeMap, cell: Cell, direction: GridDirection): Cell {
  const [dr, dc] = DELTA[direction];
  return {
    row: Math.min(map.size - 1, Math.max(0, cell.row + dr)),
    col: Math.min(map.size - 1, Math.max(0, cell.col + dc)),
  };
}

export type SlipOutcome = "intended" | "left" | "right";

/** The three possible actual directions of an intended move with their probabilities, in fixed order. */
export function actualDirections(
  direction: GridDirection,
  dynamics: SlipDynamics,
): ReadonlyArray<{ outcome: SlipOutcome; direction: GridDirection; probability: number }> {
  return [
    { outcome: "intended", direction, probability: dynamics.intended },
    { outcome: "left", direction: turnLeft(direction), probability: dynamics.left },
    { outcome: "right", direction: turnRight(direction), probability: dynamics.right },
  ];
}

export interface CellProbability extends Cell {
  probability: number;
}

/**
 * The exact distribution over next cells when `direction` is intended from `cell`: outcomes landing on
 * the same cell (walls) are merged; zero-probability cells are left out. From a hole or goal the episode
 * is over and the only next cell is the cell itself (Gymnasium's absorbing states).
 */
export function transitionProbabilities(
  map: FrozenLakeMap,
  cell: Cell,
  direction: GridDirection,
  dynamics: SlipDynamics,
): CellProbability[] {
  if (isTerminalTile(tileAt(map, cell))) return [{ row: cell.row, col: cell.col, probability: 1 }];
  const out: CellProbability[] = [];
  for (const a of actualDirections(direction, dynamics)) {
    if (a.probability <= 0) continue;
    const next = moveOnce(map, cell, a.direction);
    const same = out.find((o) => o.row === next.row && o.col === next.col);
    if (same) same.probability += a.probability;
    else out.push({ ...next, probability: a.probability });
  }
  return out;
}

/** Probability that intending `direction` from `cell` puts the player in a hole next. */
export function holeFallProbability(
  map: FrozenLakeMap,
  cell: Cell,
  direction: GridDirection,
  dynamics: SlipDynamics,
): number {
  let p = 0;
  for (const next of transitionProbabilities(map, cell, direction, dynamics)) {
    if (tileAt(map, next) === "H") p += next.probability;
  }
  return p;
}

/** Hole-fall probability of each of the four moves from `cell`. */
export function holeFallProbabilities(
  map: FrozenLakeMap,
  cell: Cell,
  dynamics: SlipDynamics,
): Record<GridDirection, number> {
  return {
    left: holeFallProbability(map, cell, "left", dynamics),
    down: holeFallProbability(map, cell, "down", dynamics),
    right: holeFallProbability(map, cell, "right", dynamics),
    up: holeFallProbability(map, cell, "up", dynamics),
  };
}

/** Whether `direction` has the lowest hole-fall probability among the four (SKL's good-move ratio). */
export function isGoodMove(
  map: FrozenLakeMap,
  cell: Cell,
  direction: GridDirection,
  dynamics: SlipDynamics,
): boolean {
  return isLowestHoleFall(holeFallProbabilities(map, cell, dynamics), direction);
}

/** Whether `direction` has the lowest of the four hole-fall probabilities `probs` (`isGoodMove`). */
export function isLowestHoleFall(
  probs: Readonly<Record<GridDirection, number>>,
  direction: GridDirection,
): boolean {
  const min = Math.min(...Object.values(probs));
  return probs[direction] <= min + 1e-12;
}

export interface SampledTransition {
  cell: Cell;
  intended: GridDirection;
  actual: GridDirection;
  outcome: SlipOutcome;
  slipped: boolean;
}

/**
 * Samples one move. Draws exactly one number from `random` unless the dynamics are deterministic
 * (intended probability 1), in which case `random` is not touched.
 */
export function sampleTransition(
  map: FrozenLakeMap,
  cell: Cell,
  direction: GridDirection,
  dynamics: SlipDynamics,
  random: Random,
): SampledTransition {
  const options = actualDirections(direction, dynamics);
  const index = dynamics.intended >= 1 ? 0 : random.weighted(options.map((o) => o.probability));
  const chosen = options[index] ?? (options[0] as (typeof options)[number]);
  return {
    cell: moveOnce(map, cell, chosen.direction),
    intended: direction,
    actual: chosen.direction,
    outcome: chosen.outcome,
    slipped: chosen.outcome !== "intended",
  };
}
