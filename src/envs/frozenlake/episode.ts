import { z } from "zod";
import type { Action } from "../../core/action.ts";
import type { ActionError, Observation } from "../../core/observation.ts";
import { ActionErrorSchema } from "../../core/observation.ts";
import { type Random, RandomStateSchema } from "../../core/random.ts";
import type { Task } from "../../core/task.ts";
import { DIRECTIONS } from "./dynamics.ts";
import { type Cell, type FrozenLakeMap, isTerminalTile, tileAt } from "./map.ts";
import { type EpisodeStatus, renderObservationText } from "./render.ts";
import type { StepTables } from "./tables.ts";

/** The four moves in Gymnasium order: every FrozenLake observation lists them as legal. */
export const FROZENLAKE_MOVES: ReadonlyArray<Action> = DIRECTIONS.map((direction) => ({
  type: "move" as const,
  direction,
}));

/** The legal moves every cached observation lists: one frozen array of frozen actions, shared. */
export const SHARED_MOVES: ReadonlyArray<Action> = Object.freeze(
  FROZENLAKE_MOVES.map((a) => Object.freeze({ ...a })),
);

/**
 * The error-free observations of one task's states, frozen and shared, built on first use; indexed
 * by `cell number * 2 + (truncated ? 1 : 0)`. One per environment and task (the text depends on the
 * environment's `showCoordinates`).
 */
export type ObservationCache = Array<Observation | undefined>;

/** The live state of one episode. */
export interface Episode {
  task: Task;
  seed: number;
  map: FrozenLakeMap;
  /** The map's shared step tables under the environment's slip model. */
  tables: StepTables;
  /** The environment's observation cache of this task. */
  observations: ObservationCache;
  /** The step limit in force: the reset's `maxSteps`, else the task's, else the config's horizon. */
  horizon: number;
  /** The `maxSteps` the episode was reset with, when given (kept in snapshots). */
  horizonOverride: number | undefined;
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
  /** The reset's `maxSteps`, when one was given. */
  horizon: z.number().int().positive().optional(),
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
    ...(ep.horizonOverride === undefined ? {} : { horizon: ep.horizonOverride }),
  };
}

/**
 * What is wrong with a saved state on `map` under step limit `horizon`, or undefined when it is one a
 * real episode can reach: on the map, terminated exactly on a hole or the goal, truncated exactly when
 * the step limit was reached without terminating, and never past the limit.
 */
export function episodeStateProblem(
  map: FrozenLakeMap,
  s: EpisodeState,
  horizon: number,
): string | undefined {
  if (s.mapDigest !== map.digest || s.row >= map.size || s.col >= map.size) {
    return "it was taken on a different map";
  }
  const tile = tileAt(map, { row: s.row, col: s.col });
  const at = `(${s.row}, ${s.col})`;
  const terminal = isTerminalTile(tile);
  if (terminal && !s.terminated)
    return `the player is on ${tile === "H" ? "a hole" : "the goal"} at ${at} but the episode is not terminated`;
  if (!terminal && s.terminated) return `the episode is terminated but the player is on frozen ice at ${at}`;
  if (s.steps > horizon) return `it has ${s.steps} steps, past the step limit of ${horizon}`;
  if (s.truncated && (s.terminated || s.steps < horizon)) {
    return `it is truncated after ${s.steps} steps, but truncation happens only at the step limit of ${horizon} without terminating`;
  }
  if (!s.truncated && !s.terminated && s.steps === horizon) {
    return `it reached the step limit of ${horizon} but is not truncated`;
  }
  return undefined;
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

function buildObservation(ep: Episode, showCoordinates: boolean): Observation {
  const { row, col } = ep.cell;
  return {
    text: renderObservationText(ep.map, ep.cell, { showCoordinates, status: episodeStatus(ep) }),
    instruction: ep.task.instruction,
    stateKey: frozenLakeStateKey(ep.map, ep.cell),
    legalActions: SHARED_MOVES as Action[],
    data: Object.freeze({ row, col, size: ep.map.size, mapId: ep.map.id }),
  };
}

/**
 * The observation of an episode state; `error` defaults to the last step's error. Without an error
 * it is the task's cached one, frozen (copy before editing); with one, a fresh object around it.
 */
/** The slot of `ep.observations` that caches the observation of `cell` (a cell index), truncated or not. */
export function observationSlot(cell: number, truncated: boolean): number {
  return cell * 2 + (truncated ? 1 : 0);
}

export function observeEpisode(
  ep: Episode,
  options: { showCoordinates: boolean; error?: ActionError | undefined },
): Observation {
  const error = "error" in options ? options.error : ep.lastError;
  const index = observationSlot(ep.cell.row * ep.map.size + ep.cell.col, ep.truncated);
  let shown = ep.observations[index];
  if (shown === undefined) {
    shown = Object.freeze(buildObservation(ep, options.showCoordinates));
    ep.observations[index] = shown;
  }
  return error ? { ...shown, error: { ...error } } : shown;
}
