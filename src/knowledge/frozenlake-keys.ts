import type { Cell, FrozenLakeMap } from "../envs/frozenlake/map.ts";

/**
 * A coarse state key that transfers across maps: the 3x3 tiles around the player (`#` off the map) and
 * the sign of the direction to the goal. The structural key (`observation.stateKey`) names one cell of one
 * map, so it never recurs on a held-out map; this one does.
 */
export function frozenLakeLocalKey(map: FrozenLakeMap, cell: Cell): string {
  const tiles: string[] = [];
  for (let dr = -1; dr <= 1; dr++) {
    let row = "";
    for (let dc = -1; dc <= 1; dc++) {
      const r = cell.row + dr;
      const c = cell.col + dc;
      row += r < 0 || c < 0 || r >= map.size || c >= map.size ? "#" : (map.rows[r]?.[c] ?? "#");
    }
    tiles.push(row);
  }
  let goal: Cell = { row: map.size - 1, col: map.size - 1 };
  map.rows.forEach((r, row) => {
    const col = r.indexOf("G");
    if (col >= 0) goal = { row, col };
  });
  return `frozenlake-local:${tiles.join("/")}:goal(${Math.sign(goal.row - cell.row)},${Math.sign(goal.col - cell.col)})`;
}

/** The cell of a FrozenLake observation (`data.row`, `data.col`), if present. */
export function cellOf(data: Record<string, unknown> | undefined): Cell | undefined {
  const row = data?.row;
  const col = data?.col;
  return typeof row === "number" && typeof col === "number" ? { row, col } : undefined;
}
