import type { Cell, FrozenLakeMap, Tile } from "./map.ts";

/** Text letters of the observation grid (SKL's rendering): start and frozen cells look alike. */
export const RENDER_LETTERS: Readonly<Record<Tile, string>> = { S: "_", F: "_", H: "O", G: "G" };
export const PLAYER_LETTER = "P";

/** The grid with `P` on the player's cell, one row per line. */
export function renderGrid(map: FrozenLakeMap, player: Cell): string {
  return map.rows
    .map((row, r) =>
      [...row]
        .map((tile, c) =>
          r === player.row && c === player.col ? PLAYER_LETTER : RENDER_LETTERS[tile as Tile],
        )
        .join(""),
    )
    .join("\n");
}

/** Parses a rendered grid back into the player's cell and the visible letters (for tests and parsers). */
export function parseRenderedGrid(text: string): { player: Cell | null; lines: string[] } {
  const lines = text.split("\n").filter((l) => /^[P_OG]+$/.test(l));
  let player: Cell | null = null;
  lines.forEach((line, row) => {
    const col = line.indexOf(PLAYER_LETTER);
    if (col >= 0) player = { row, col };
  });
  return { player, lines };
}

export type EpisodeStatus = "running" | "goal" | "hole" | "truncated";

export interface RenderOptions {
  showCoordinates: boolean;
  status: EpisodeStatus;
}

const STATUS_LINES: Readonly<Record<EpisodeStatus, string | null>> = {
  running: null,
  goal: "You reached the goal.",
  hole: "You fell into a hole.",
  truncated: "Out of steps.",
};

/** The observation text: the grid, then `Position (row, col): (r, c)`, then a status line at the end. */
export function renderObservationText(map: FrozenLakeMap, player: Cell, options: RenderOptions): string {
  const lines = [renderGrid(map, player)];
  if (options.showCoordinates) lines.push(`Position (row, col): (${player.row}, ${player.col})`);
  const status = STATUS_LINES[options.status];
  if (status) lines.push(status);
  return lines.join("\n");
}
