import type { GridDirection } from "../../core/action.ts";
import { weightTotal } from "../../core/random.ts";
import {
  DIRECTIONS,
  holeFallProbabilities,
  isLowestHoleFall,
  moveOnce,
  type SlipDynamics,
  turnLeft,
  turnRight,
} from "./dynamics.ts";
import type { Cell, FrozenLakeMap, Tile } from "./map.ts";

/**
 * Everything a step needs about one map under one slip model, computed once from the functions of
 * `dynamics.ts` (so the values are theirs exactly) and shared by every episode and environment on
 * that map: cells are numbered `row * size + col`, moves `cell * 4 + action` (Gymnasium's action
 * order), slip outcomes `move * 3 + k` with k 0 intended, 1 left, 2 right.
 */
export interface StepTables {
  readonly size: number;
  /** Whether the dynamics are deterministic (intended probability 1): then no random number is drawn. */
  readonly deterministic: boolean;
  /** `[intended, left, right]`, the weights of the one draw per slippery move. */
  readonly weights: ReadonlyArray<number>;
  /** `weightTotal(weights)`, for `weightedIndex`. */
  readonly weightTotal: number;
  /** Frozen cell objects by cell number. */
  readonly cells: ReadonlyArray<Cell>;
  readonly tiles: ReadonlyArray<Tile>;
  /** The cell number each slip outcome lands on. */
  readonly landing: Int32Array;
  /** The actual direction of each slip outcome, by `action * 3 + k`. */
  readonly actual: ReadonlyArray<GridDirection>;
  /** Frozen hole-fall probabilities of the four moves, by cell number. */
  readonly holeProbabilities: ReadonlyArray<Readonly<Record<GridDirection, number>>>;
  /** 1 where the move has the lowest hole-fall probability (`isGoodMove`), by move number. */
  readonly goodMove: Uint8Array;
  /**
   * The frozen `info` of each valid transition, by slip outcome number `move * 3 + k`: a step's info
   * depends only on the cell, the action and the slip, so every step shares one object (and a store
   * serialises each one once).
   */
  readonly transitionInfo: ReadonlyArray<StepInfo>;
  /** The frozen `info` of an invalid action, by cell number. */
  readonly invalidInfo: ReadonlyArray<StepInfo>;
}

/** What a FrozenLake step reports in `info` (frozen, shared through the tables). */
export type StepInfo = Readonly<Record<string, unknown>>;

/** The action number (Gymnasium order) of a direction, undefined for anything else. */
export function directionIndex(direction: unknown): number | undefined {
  switch (direction) {
    case "left":
      return 0;
    case "down":
      return 1;
    case "right":
      return 2;
    case "up":
      return 3;
    default:
      return undefined;
  }
}

function buildTables(map: FrozenLakeMap, dynamics: SlipDynamics): StepTables {
  const size = map.size;
  const cells: Cell[] = [];
  const tiles: Tile[] = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      cells.push(Object.freeze({ row, col }));
      tiles.push((map.rows[row] as string)[col] as Tile);
    }
  }
  const actual = DIRECTIONS.flatMap((d) => [d, turnLeft(d), turnRight(d)]);
  const landing = new Int32Array(cells.length * 12);
  const goodMove = new Uint8Array(cells.length * 4);
  const holeProbabilities = cells.map((cell, i) => {
    // Once per cell: `isGoodMove` is `isLowestHoleFall` of exactly these probabilities.
    const probabilities = Object.freeze(holeFallProbabilities(map, cell, dynamics));
    DIRECTIONS.forEach((direction, a) => {
      goodMove[i * 4 + a] = isLowestHoleFall(probabilities, direction) ? 1 : 0;
      for (let k = 0; k < 3; k++) {
        const to = moveOnce(map, cell, actual[a * 3 + k] as GridDirection);
        landing[(i * 4 + a) * 3 + k] = to.row * size + to.col;
      }
    });
    return probabilities;
  });
  const transitionInfo: StepInfo[] = [];
  const invalidInfo = cells.map((from, i) => {
    const probabilities = holeProbabilities[i];
    for (let a = 0; a < 4; a++) {
      for (let k = 0; k < 3; k++) {
        transitionInfo.push(
          Object.freeze({
            holeProbabilities: probabilities,
            from,
            intended: DIRECTIONS[a],
            actual: actual[a * 3 + k],
            slipped: k !== 0,
            goodMove: goodMove[i * 4 + a] === 1,
          }),
        );
      }
    }
    return Object.freeze({
      holeProbabilities: probabilities,
      from,
      intended: null,
      actual: null,
      slipped: false,
      invalid: true,
    });
  });
  const weights = Object.freeze([dynamics.intended, dynamics.left, dynamics.right]);
  return Object.freeze({
    size,
    deterministic: dynamics.intended >= 1,
    weights,
    weightTotal: weightTotal(weights),
    cells: Object.freeze(cells),
    tiles: Object.freeze(tiles),
    landing,
    actual: Object.freeze(actual),
    holeProbabilities: Object.freeze(holeProbabilities),
    goodMove,
    transitionInfo: Object.freeze(transitionInfo),
    invalidInfo: Object.freeze(invalidInfo),
  });
}

/** Tables of recently used maps (random-map suites have many); the oldest is dropped past the cap. */
const CACHE_CAP = 512;
const cache = new Map<string, StepTables>();

/** The shared step tables of `map` under `dynamics` (keyed by layout and slip model). */
export function stepTables(map: FrozenLakeMap, dynamics: SlipDynamics): StepTables {
  const key = `${map.rows.join("/")}|${dynamics.intended}|${dynamics.left}|${dynamics.right}`;
  let tables = cache.get(key);
  if (tables === undefined) {
    tables = buildTables(map, dynamics);
    if (cache.size >= CACHE_CAP) cache.delete(cache.keys().next().value as string);
    cache.set(key, tables);
  }
  return tables;
}
