import type { Action } from "../../core/action.ts";
import type { Observation } from "../../core/observation.ts";
import type { StateRecord, StateViewer } from "../../core/state-view.ts";
import type { Task } from "../../core/task.ts";
import { stateFields } from "../state-fields.ts";
import { frozenLakeStateKey, SHARED_MOVES } from "./episode.ts";
import type { Cell, FrozenLakeMap } from "./map.ts";
import { type EpisodeStatus, parseRenderedGrid, renderObservationText } from "./render.ts";
import { FROZENLAKE_FAMILY, mapOfTask } from "./suite.ts";

const FIELDS = stateFields(
  {
    "agent.row": "number",
    "agent.col": "number",
    status: "string",
    done: "boolean",
  },
  {
    "map.id": "string",
    "map.digest": "string",
    "map.rows": "number",
    "map.cols": "number",
    "cell.*.*": "string",
  },
);

const STATUS_OF_LINE: ReadonlyArray<[string, EpisodeStatus]> = [
  ["You reached the goal.", "goal"],
  ["You fell into a hole.", "hole"],
  ["Out of steps.", "truncated"],
];

const STATE_KEY = /^frozenlake:(.*)#([0-9a-f]+):\((\d+),(\d+)\)$/;

function statusOfText(text: string): EpisodeStatus {
  const last = text.slice(text.lastIndexOf("\n") + 1);
  return STATUS_OF_LINE.find(([line]) => line === last)?.[1] ?? "running";
}

/**
 * Tiles of the map: from the task's map when the task is given (exact), else from the grid's letters,
 * where start and frozen look alike (`_` reads as `F`) and the player's own tile is known only when
 * the episode ended on it (goal or hole).
 */
function tilesOf(observation: Observation, status: EpisodeStatus, task: Task | undefined): string[][] {
  if (task !== undefined) return mapOfTask(task).rows.map((row) => [...row]);
  const letters: Record<string, string> = { _: "F", O: "H", G: "G" };
  return parseRenderedGrid(observation.text).lines.map((line) =>
    [...line].map((ch) => {
      if (ch !== "P") return letters[ch] ?? "";
      return status === "goal" ? "G" : status === "hole" ? "H" : "";
    }),
  );
}

/** FrozenLake's state: the player's cell, the episode status and the map's tiles. */
function view(observation: Observation, task?: Task): StateRecord {
  const status = statusOfText(observation.text);
  const key = STATE_KEY.exec(observation.stateKey ?? "");
  const player = parseRenderedGrid(observation.text).player as Cell | null;
  const tiles = tilesOf(observation, status, task);
  const record: StateRecord = {};
  if (player) {
    record["agent.row"] = player.row;
    record["agent.col"] = player.col;
  }
  record.status = status;
  record.done = status !== "running";
  if (key) {
    record["map.id"] = key[1] ?? "";
    record["map.digest"] = key[2] ?? "";
  }
  record["map.rows"] = tiles.length;
  record["map.cols"] = tiles[0]?.length ?? 0;
  tiles.forEach((row, r) => {
    row.forEach((tile, c) => {
      if (tile !== "") record[`cell.${r}.${c}`] = tile;
    });
  });
  return record;
}

/** The status the environment shows for a player standing on `tile`, truncated or not. */
function statusOn(tile: string, state: StateRecord): EpisodeStatus {
  if (tile === "G") return "goal";
  if (tile === "H") return "hole";
  return state.status === "truncated" ? "truncated" : "running";
}

/** The observation the environment shows in `state`, built with the environment's own render code. */
function render(state: StateRecord, previous: Observation): Observation {
  const rows = Number(state["map.rows"]);
  const cols = Number(state["map.cols"]);
  const player: Cell = { row: Number(state["agent.row"]), col: Number(state["agent.col"]) };
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    let line = "";
    for (let c = 0; c < cols; c++) line += String(state[`cell.${r}.${c}`] ?? "F");
    lines.push(line);
  }
  const map: FrozenLakeMap = {
    id: String(state["map.id"] ?? ""),
    digest: String(state["map.digest"] ?? ""),
    size: rows,
    rows: lines,
    start: { row: 0, col: 0 },
  };
  const onTile = String(state[`cell.${player.row}.${player.col}`] ?? "F");
  // The player's tile is unknown without the task unless the episode ended on it.
  const status: EpisodeStatus =
    state[`cell.${player.row}.${player.col}`] === undefined && state.status !== undefined
      ? (String(state.status) as EpisodeStatus)
      : statusOn(onTile, state);
  const showCoordinates = previous.text.includes("\nPosition (row, col): (");
  const observation: Observation = {
    text: renderObservationText(map, player, { showCoordinates, status }),
    stateKey: frozenLakeStateKey(map, player),
    legalActions: SHARED_MOVES.map((a) => ({ ...a }) as Action),
    data: { row: player.row, col: player.col, size: rows, mapId: map.id },
  };
  if (previous.instruction !== undefined) observation.instruction = previous.instruction;
  return observation;
}

/** FrozenLake observations as states (see `StateViewer`). */
export const frozenLakeStateViewer: StateViewer = {
  family: FROZENLAKE_FAMILY,
  fields: FIELDS,
  view,
  render,
};
