import type { Observation } from "../../core/observation.ts";
import type { Cell, FrozenLakeMap } from "../../envs/frozenlake/map.ts";
import type { FrozenLakeSuite } from "../../envs/frozenlake/suite.ts";
import type { KeyView } from "../../knowledge/loops.ts";
import type { OutcomeTerms } from "../../knowledge/statistical-writer.ts";

/**
 * A coarse state key that transfers across maps: the four tiles next to the player (left, down, right,
 * up; `#` off the map), which are all a move or a slip can reach, and the sign of the direction to the
 * goal. The structural key (`observation.stateKey`) names one cell of one map, so it never recurs on a
 * held-out map; this one does.
 */
export function frozenLakeLocalKey(map: FrozenLakeMap, cell: Cell): string {
  const tile = (r: number, c: number) =>
    r < 0 || c < 0 || r >= map.size || c >= map.size ? "#" : (map.rows[r]?.[c] ?? "#");
  // Left, down, right, up: the cells a move (or a slip) can reach.
  const tiles = [
    tile(cell.row, cell.col - 1),
    tile(cell.row + 1, cell.col),
    tile(cell.row, cell.col + 1),
    tile(cell.row - 1, cell.col),
  ];
  let goal: Cell = { row: map.size - 1, col: map.size - 1 };
  map.rows.forEach((r, row) => {
    const col = r.indexOf("G");
    if (col >= 0) goal = { row, col };
  });
  return `frozenlake-local:${tiles.join("")}:goal(${Math.sign(goal.row - cell.row)},${Math.sign(goal.col - cell.col)})`;
}

/** The cell of a FrozenLake observation (`data.row`, `data.col`), if present. */
export function cellOf(data: Record<string, unknown> | undefined): Cell | undefined {
  const row = data?.row;
  const col = data?.col;
  return typeof row === "number" && typeof col === "number" ? { row, col } : undefined;
}

/** The local key as a view the SKL loops learn under (named `local`). */
export function frozenLakeLocalView(suite: FrozenLakeSuite): KeyView {
  return {
    name: "local",
    key: (observation: Observation, taskId: string) => {
      const cell = cellOf(observation.data);
      return cell ? frozenLakeLocalKey(suite.map(taskId), cell) : undefined;
    },
  };
}

/** `(r,c)` from a key ending in `:(r,c)` (a FrozenLake cell), else the key itself. */
export function describeFrozenLakeKey(key: string): string {
  const m = /\((\d+),(\d+)\)$/.exec(key);
  return m ? `(${m[1]},${m[2]})` : key;
}

/** How the statistical writer's texts speak of FrozenLake outcomes. */
export const FROZENLAKE_TERMS: OutcomeTerms = {
  failure: "fell into a hole",
  success: "reached the goal",
  intended: "moved as intended",
  act: "moving",
};
