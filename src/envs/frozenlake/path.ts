import type { GridDirection } from "../../core/action.ts";
import { DIRECTIONS, moveOnce } from "./dynamics.ts";
import { type Cell, type FrozenLakeMap, tileAt } from "./map.ts";

/**
 * Distance (in moves on non-slippery ice) from every cell to the nearest goal, never stepping on a hole;
 * -1 where no goal is reachable. Holes get -1, goals 0. Indexed `row * size + col`.
 */
export function goalDistances(map: FrozenLakeMap): Int32Array {
  const n = map.size;
  const dist = new Int32Array(n * n).fill(-1);
  const queue: Cell[] = [];
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      if (tileAt(map, { row, col }) === "G") {
        dist[row * n + col] = 0;
        queue.push({ row, col });
      }
    }
  }
  // Moves are reversible on open ice (walls only add self-loops), so a BFS from the goals is exact.
  for (let head = 0; head < queue.length; head++) {
    const cell = queue[head] as Cell;
    const d = dist[cell.row * n + cell.col] as number;
    for (const direction of DIRECTIONS) {
      const prev = moveOnce(map, cell, direction);
      const key = prev.row * n + prev.col;
      if (dist[key] !== -1) continue;
      const tile = tileAt(map, prev);
      if (tile === "H" || tile === "G") continue;
      dist[key] = d + 1;
      queue.push(prev);
    }
  }
  return dist;
}

/**
 * The next move of a shortest hole-free path to a goal on non-slippery ice, ties broken by Gymnasium's
 * action order (left, down, right, up); null at a goal, on a hole, or when no goal is reachable.
 */
export function shortestSafeMove(
  map: FrozenLakeMap,
  cell: Cell,
  distances: Int32Array = goalDistances(map),
): GridDirection | null {
  const tile = tileAt(map, cell);
  if (tile === "G" || tile === "H") return null;
  const here = distances[cell.row * map.size + cell.col] ?? -1;
  if (here <= 0) return null;
  for (const direction of DIRECTIONS) {
    const next = moveOnce(map, cell, direction);
    if (distances[next.row * map.size + next.col] === here - 1) return direction;
  }
  return null;
}

/** The whole shortest safe path from `cell` as moves (empty at a goal), or null when there is none. */
export function shortestSafePath(map: FrozenLakeMap, cell: Cell): GridDirection[] | null {
  const distances = goalDistances(map);
  if (tileAt(map, cell) === "G") return [];
  const path: GridDirection[] = [];
  let cur = cell;
  for (;;) {
    const move = shortestSafeMove(map, cur, distances);
    if (move === null) return tileAt(map, cur) === "G" ? path : null;
    path.push(move);
    cur = moveOnce(map, cur, move);
  }
}
