import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";

/**
 * A FrozenLake map in Gymnasium's letters: `S` start, `F` frozen, `H` hole, `G` goal. Rows are listed top
 * to bottom; row 0 is the top row and column 0 the left column.
 */
export type Tile = "S" | "F" | "H" | "G";

export interface Cell {
  row: number;
  col: number;
}

export interface FrozenLakeMap {
  /** Stable name of the map (the task id for suite maps, e.g. `4x4`, `random-5-3`). */
  readonly id: string;
  /** Side length: maps are square. */
  readonly size: number;
  /** Gymnasium rows, e.g. `["SFFF", "FHFH", "FFFH", "HFFG"]`. */
  readonly rows: ReadonlyArray<string>;
  readonly start: Cell;
  /** First 16 hex digits of sha256 of the rows joined by `/`: identifies the layout. */
  readonly digest: string;
}

/** Gymnasium's standard maps (`gymnasium.envs.toy_text.frozen_lake.MAPS`), exactly. */
export const STANDARD_MAPS: Readonly<Record<"4x4" | "8x8", ReadonlyArray<string>>> = {
  "4x4": ["SFFF", "FHFH", "FFFH", "HFFG"],
  "8x8": ["SFFFFFFF", "FFFFFFFF", "FFFHFFFF", "FFFFFHFF", "FFFHFFFF", "FHHFFFHF", "FHFFHFHF", "FFFHFFFG"],
};
export type StandardMapId = keyof typeof STANDARD_MAPS;
export const STANDARD_MAP_IDS: ReadonlyArray<StandardMapId> = ["4x4", "8x8"];

/** Rows of a map as data (task params, config files): square, only S/F/H/G, one S, at least one G. */
export const MapRowsSchema = z
  .array(z.string().regex(/^[SFHG]+$/, "map rows use only the letters S, F, H, G"))
  .min(2, "a map needs at least 2 rows");

/** Parses and validates Gymnasium rows; throws a UserError naming the problem. */
export function parseMap(id: string, rows: ReadonlyArray<string>): FrozenLakeMap {
  const parsed = MapRowsSchema.safeParse(rows);
  if (!parsed.success) {
    throw new UserError(
      "frozenlake.bad_map",
      `FrozenLake map "${id}" is invalid: ${parsed.error.issues.map((i) => i.message).join("; ")}. ` +
        'Give square rows of S/F/H/G, e.g. ["SFFF","FHFH","FFFH","HFFG"].',
    );
  }
  const size = rows.length;
  const bad = rows.findIndex((r) => r.length !== size);
  if (bad >= 0) {
    throw new UserError(
      "frozenlake.bad_map",
      `FrozenLake map "${id}" is not square: row ${bad} has ${rows[bad]?.length} letters, expected ${size}.`,
    );
  }
  const starts: Cell[] = [];
  let goals = 0;
  rows.forEach((r, row) => {
    for (let col = 0; col < r.length; col++) {
      if (r[col] === "S") starts.push({ row, col });
      if (r[col] === "G") goals++;
    }
  });
  const start = starts[0];
  if (starts.length !== 1 || start === undefined) {
    throw new UserError(
      "frozenlake.bad_map",
      `FrozenLake map "${id}" needs exactly one start S, found ${starts.length}.`,
    );
  }
  if (goals === 0) {
    throw new UserError("frozenlake.bad_map", `FrozenLake map "${id}" needs at least one goal G.`);
  }
  const copy = [...rows];
  return { id, size, rows: copy, start, digest: mapDigest(copy) };
}

export function mapDigest(rows: ReadonlyArray<string>): string {
  return sha256Hex(rows.join("/")).slice(0, 16);
}

/** The tile at a cell; throws a RangeError outside the map (a bug, not user input). */
export function tileAt(map: FrozenLakeMap, cell: Cell): Tile {
  const tile = map.rows[cell.row]?.[cell.col];
  if (tile === undefined) throw new RangeError(`cell (${cell.row}, ${cell.col}) is outside map ${map.id}`);
  return tile as Tile;
}

export function inBounds(map: FrozenLakeMap, cell: Cell): boolean {
  return cell.row >= 0 && cell.col >= 0 && cell.row < map.size && cell.col < map.size;
}

/** Holes and goals end the episode. */
export function isTerminalTile(tile: Tile): boolean {
  return tile === "H" || tile === "G";
}

/** The standard 4x4 or 8x8 map. */
export function standardMap(id: StandardMapId): FrozenLakeMap {
  return parseMap(id, STANDARD_MAPS[id]);
}
