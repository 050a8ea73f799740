import { z } from "zod";
import type { Action } from "../../core/action.ts";
import type { ActionError, Observation } from "../../core/observation.ts";
import { ActionErrorSchema } from "../../core/observation.ts";
import { type Random, RandomStateSchema } from "../../core/random.ts";
import type { Task } from "../../core/task.ts";
import { DIRECTIONS } from "./dynamics.ts";
import { type Cell, type FrozenLakeMap, tileAt } from "./map.ts";
import { type EpisodeStatus, renderObservationText } from "./render.ts";

/** The four moves in Gymnasium order: every FrozenLake observation lists them as legal. */
export const FROZENLAKE_MOVES: ReadonlyArray<Action> = DIRECTIONS.map((direction) => ({
  type: "move" as const,
  direction,
}));

/** The live state of one episode. */
export interface Episode {
  task: Task;
  seed: number;
  map: FrozenLakeMap;
  horizon: number;
  cell: Cell;
  steps: number;
  terminated: boolean;
  truncated: boolean;
  /** The slip stream, seeded from `frozenlake|taskId|seed`. */
  random: Random;
  /** The error of the last step, kept so that a restored state shows the same observation. */
  lastError: ActionError | undefined;
}

/** The saved part of an episode (snapshot `state`); everything else follows from the task and seed. */
export const EpisodeStateSchema = z.object({
  mapDigest: z.string(),
  row: z.number().int().nonnegative(),
  col: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  random: RandomStateSchema,
  lastError: ActionErrorSchema.optional(),
});
export type EpisodeState = z.infer<typeof EpisodeStateSchema>;

export function saveEpisode(ep: Episode): EpisodeState {
  return {
    mapDigest: ep.map.digest,
    row: ep.cell.row,
    col: ep.cell.col,
    steps: ep.steps,
    terminated: ep.terminated,
    truncated: ep.truncated,
    random: ep.random.getState(),
    ...(ep.lastError ? { lastError: { ...ep.lastError } } : {}),
  };
}

export function episodeStatus(ep: Episode): EpisodeStatus {
  const tile = tileAt(ep.map, ep.cell);
  if (tile === "G") return "goal";
  if (tile === "H") return "hole";
  return ep.truncated ? "truncated" : "running";
}

/** Structural state key: the map (id and layout digest) and the player's cell. */
export function frozenLakeStateKey(map: FrozenLakeMap, cell: Cell): string {
  return `frozenlake:${map.id}#${map.digest}:(${cell.row},${cell.col})`;
}

/** The observation of an episode state; `error` defaults to the last step's error. */
export function observeEpisode(
  ep: Episode,
  options: { showCoordinates: boolean; error?: ActionError | undefined },
): Observation {
  const { row, col } = ep.cell;
  const error = "error" in options ? options.error : ep.lastError;
  return {
    text: renderObservationText(ep.map, ep.cell, {
      showCoordinates: options.showCoordinates,
      status: episodeStatus(ep),
    }),
    instruction: ep.task.instruction,
    stateKey: frozenLakeStateKey(ep.map, ep.cell),
    legalActions: FROZENLAKE_MOVES.map((a) => ({ ...a })),
    data: { row, col, size: ep.map.size, mapId: ep.map.id },
    ...(error ? { error: { ...error } } : {}),
  };
}
