import type { Cell, FrozenLakeMap } from "../envs/frozenlake/map.ts";

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
