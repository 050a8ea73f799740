import type { Action, PolicyContext } from "../../core/index.ts";
import { parseRenderedGrid } from "../../envs/frozenlake/render.ts";

/**
 * Local FrozenLake features of a move for the linear policy: what the grid in the observation text
 * shows around the player (never the map's id or the player's cell), so weights learned on some maps
 * apply on maps never seen. For a move in direction d:
 *
 * - `fl:dest=<tile>`: the tile d leads to — `_` frozen, `O` hole, `G` goal, `#` off the grid (a wall:
 *   the player stays);
 * - `fl:slip-holes=<0|1|2>`: holes among the two tiles perpendicular to d (where a slip goes);
 * - `fl:goal=<toward|away|across>`: whether d reduces, increases or keeps the distance to the goal
 *   along its axis;
 * - `fl:dest=<tile>|goal=<…>`: the pair.
 *
 * No path search: whether a frozen tile leads anywhere is for the weights to learn from the data.
 */

const DELTAS: Readonly<Record<string, readonly [number, number]>> = {
  left: [0, -1],
  down: [1, 0],
  right: [0, 1],
  up: [-1, 0],
};

/** The grid of an observation text as rows, the player's cell and the goal's (null when not a grid). */
function gridOf(
  text: string,
): { lines: string[]; player: { row: number; col: number }; goal: [number, number] } | null {
  const { player, lines } = parseRenderedGrid(text);
  if (!player) return null;
  let goal: [number, number] = [lines.length - 1, (lines[0]?.length ?? 1) - 1];
  lines.forEach((line, row) => {
    const col = line.indexOf("G");
    if (col >= 0) goal = [row, col];
  });
  return { lines, player, goal };
}

function tileAt(lines: ReadonlyArray<string>, row: number, col: number): string {
  const ch = lines[row]?.[col];
  if (ch === undefined) return "#";
  return ch === "P" ? "_" : ch;
}

/** The features above of `action` in `context` (none for a non-move or an observation without a grid). */
export function frozenLakeFeatures(context: PolicyContext, action: Action): Array<[string, number]> {
  if (action.type !== "move") return [];
  const delta = DELTAS[action.direction];
  const grid = gridOf(context.observation.text);
  if (!delta || !grid) return [];
  const [dr, dc] = delta;
  const { row, col } = grid.player;
  const dest = tileAt(grid.lines, row + dr, col + dc);
  const slipHoles = [tileAt(grid.lines, row + dc, col + dr), tileAt(grid.lines, row - dc, col - dr)].filter(
    (t) => t === "O",
  ).length;
  const along = dr !== 0 ? Math.sign(grid.goal[0] - row) * dr : Math.sign(grid.goal[1] - col) * dc;
  const goal = along > 0 ? "toward" : along < 0 ? "away" : "across";
  return [
    [`fl:dest=${dest}`, 1],
    [`fl:slip-holes=${slipHoles}`, 1],
    [`fl:goal=${goal}`, 1],
    [`fl:dest=${dest}|goal=${goal}`, 1],
  ];
}
