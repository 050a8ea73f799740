import { type Action, MoveActionSchema } from "../../core/action.ts";
import type { Capabilities, EnvironmentSnapshot, ResetOptions, StepResult } from "../../core/environment.ts";
import type { ActionError, Observation } from "../../core/observation.ts";
import { createRandom, weightedIndex } from "../../core/random.ts";
import { type WithSyncTwin, withSyncTwin } from "../../core/sync-twin.ts";
import type { TaskSuite } from "../../core/task.ts";
import type { VerifierResult } from "../../core/verifier.ts";
import {
  EpisodeSlot,
  endedStep,
  episodeEndedError,
  RecordedEpisodes,
  resumeEpisode,
  type SnapshotEnvironment,
} from "../episode-kit.ts";
import { type FrozenLakeConfig, type FrozenLakeConfigInput, parseFrozenLakeConfig } from "./config.ts";
import type { SlipDynamics } from "./dynamics.ts";
import {
  type Episode,
  EpisodeStateSchema,
  episodeStateProblem,
  episodeStatus,
  type ObservationCache,
  observationSlot,
  observeEpisode,
  SHARED_MOVES,
  saveEpisode,
} from "./episode.ts";
import type { Cell, FrozenLakeMap } from "./map.ts";
import { goalDistances, shortestSafeMove } from "./path.ts";
import { createFrozenLakeSuite, FROZENLAKE_FAMILY, mapOfTask } from "./suite.ts";
import { directionIndex, type StepInfo, type StepTables, stepTables } from "./tables.ts";

const INVALID_ACTION_MESSAGE =
  'FrozenLake accepts only {"type":"move","direction":"left"|"down"|"right"|"up"}';

/**
 * The action number of a valid move action, else undefined; exactly `MoveActionSchema`'s verdict: a
 * plain check of the two keys first, the schema only for anything else.
 */
function moveIndex(action: unknown): number | undefined {
  // The moves the observations list (what policies pick from): known valid (four identity checks).
  for (let i = 0; i < 4; i++) if (action === SHARED_MOVES[i]) return i;
  if (typeof action === "object" && action !== null) {
    const given = action as { type?: unknown; direction?: unknown };
    let keys = 0;
    for (const _ in given) keys++;
    if (keys === 2 && given.type === "move") {
      const a = directionIndex(given.direction);
      if (a !== undefined && Object.hasOwn(given, "type") && Object.hasOwn(given, "direction")) return a;
    }
  }
  const parsed = MoveActionSchema.safeParse(action);
  return parsed.success ? directionIndex(parsed.data.direction) : undefined;
}

export interface FrozenLakeEnvironment extends SnapshotEnvironment {
  readonly config: FrozenLakeConfig;
  readonly dynamics: SlipDynamics;
}

export interface FrozenLakeEnvironmentOptions {
  /** Play this suite's tasks instead of the one `config.suite` describes (tasks carry their map in params). */
  suite?: TaskSuite;
}

class FrozenLake extends RecordedEpisodes<Episode> implements FrozenLakeEnvironment {
  readonly family = FROZENLAKE_FAMILY;
  readonly capabilities: Capabilities = { snapshot: true, replay: true, deterministic: true };
  readonly dynamics: SlipDynamics;
  protected readonly slot = new EpisodeSlot<Episode>(FROZENLAKE_FAMILY, "FrozenLake", (ep) => ({
    taskId: ep.task.id,
    seed: ep.seed,
    state: saveEpisode(ep),
  }));
  /** Per task: its map, the map's shared step tables and this environment's observation cache. */
  private readonly plays = new Map<
    string,
    { map: FrozenLakeMap; tables: StepTables; observations: ObservationCache }
  >();
  private readonly distances = new Map<string, Int32Array>();

  constructor(
    readonly config: FrozenLakeConfig,
    readonly suite: TaskSuite,
  ) {
    super();
    this.dynamics = config.dynamics;
  }

  async reset(options: ResetOptions): Promise<Observation> {
    const { taskId, seed, maxSteps } = this.slot.parseReset(
      options,
      "{taskId: string, seed: non-negative integer, maxSteps?: positive integer}",
    );
    return this.observe(this.slot.set(this.freshEpisode(taskId, seed, maxSteps)));
  }

  /** A FrozenLake step never waits: `step.sync` is the same step without a promise. */
  readonly step: WithSyncTwin<[Action], StepResult> = withSyncTwin((action) => this.stepNow(action));

  private stepNow(action: Action): StepResult {
    const ep = this.slot.require("step");
    if (ep.terminated || ep.truncated)
      return endedStep(this.observe(ep, episodeEndedError("FrozenLake")), ep);
    const t = ep.tables;
    const cell = ep.cell.row * t.size + ep.cell.col;
    const a = moveIndex(action);
    ep.steps++;
    if (a === undefined) {
      const given = action as { type?: unknown; direction?: unknown } | null;
      const got =
        given?.type === "move"
          ? `direction ${JSON.stringify(given.direction)}`
          : `type ${JSON.stringify(given?.type ?? null)}`;
      ep.lastError = { code: "invalid_action", message: `${INVALID_ACTION_MESSAGE}; got ${got}.` };
      ep.truncated = ep.steps >= ep.horizon;
      const info = t.invalidInfo[cell] as StepInfo;
      return { observation: this.observe(ep), reward: 0, terminated: false, truncated: ep.truncated, info };
    }
    // One draw of the episode's stream per slippery move, none when the ice is not slippery.
    const k = t.deterministic ? 0 : weightedIndex(ep.random.next(), t.weights, t.weightTotal);
    const outcome = (cell * 4 + a) * 3 + k;
    const to = t.landing[outcome] as number;
    ep.cell = t.cells[to] as Cell;
    ep.lastError = undefined;
    const tile = t.tiles[to];
    ep.terminated = tile === "H" || tile === "G";
    ep.truncated = !ep.terminated && ep.steps >= ep.horizon;
    const info = t.transitionInfo[outcome] as StepInfo;
    // The task's cached observation of the new state (what `observeEpisode` returns without an error).
    const observation = ep.observations[observationSlot(to, ep.truncated)] ?? this.observe(ep);
    return {
      observation,
      reward: tile === "G" ? 1 : 0,
      terminated: ep.terminated,
      truncated: ep.truncated,
      info,
    };
  }

  async evaluate(): Promise<VerifierResult> {
    const ep = this.slot.require("evaluate");
    const at = `(${ep.cell.row}, ${ep.cell.col})`;
    const metrics = { steps: ep.steps };
    switch (episodeStatus(ep)) {
      case "goal":
        return {
          reward: 1,
          success: true,
          reason: `reached the goal at ${at} in ${ep.steps} steps`,
          metrics,
        };
      case "hole":
        return {
          reward: 0,
          success: false,
          reason: `fell into the hole at ${at} after ${ep.steps} steps`,
          metrics,
        };
      case "truncated":
        return {
          reward: 0,
          success: false,
          reason: `did not reach the goal within the horizon of ${ep.horizon} steps; ended at ${at}`,
          metrics,
        };
      default:
        return {
          reward: 0,
          success: false,
          reason: `the goal is not reached yet: at ${at} after ${ep.steps} of ${ep.horizon} steps`,
          metrics,
        };
    }
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = this.slot.readSnapshot(snapshot, EpisodeStateSchema);
    const s = snap.state;
    const ep = this.freshEpisode(snap.taskId, snap.seed, s.horizon);
    const problem = episodeStateProblem(ep.map, s, ep.horizon);
    if (problem !== undefined) {
      throw this.slot.badSnapshot(
        `FrozenLake restore(): the snapshot of task "${ep.task.id}" is not a state an episode can reach: ${problem}. Restore only snapshots that snapshot() made on this task's map, unedited.`,
      );
    }
    ep.cell = ep.tables.cells[s.row * ep.map.size + s.col] as Cell;
    ep.steps = s.steps;
    ep.terminated = s.terminated;
    ep.truncated = s.truncated;
    return this.observe(this.slot.set(resumeEpisode(ep, s)));
  }

  async oracleAction(): Promise<Action | null> {
    const ep = this.slot.require("oracleAction");
    if (ep.terminated || ep.truncated) return null;
    let distances = this.distances.get(ep.map.digest);
    if (!distances) {
      distances = goalDistances(ep.map);
      this.distances.set(ep.map.digest, distances);
    }
    const direction = shortestSafeMove(ep.map, ep.cell, distances);
    return direction === null ? null : { type: "move", direction };
  }

  async close(): Promise<void> {
    this.slot.close();
  }

  private freshEpisode(taskId: string, seed: number, maxSteps: number | undefined): Episode {
    const task = this.suite.get(taskId);
    let play = this.plays.get(taskId);
    if (!play) {
      const map = mapOfTask(task);
      play = { map, tables: stepTables(map, this.dynamics), observations: [] };
      this.plays.set(taskId, play);
    }
    const { map, tables } = play;
    return {
      task,
      seed,
      map,
      tables,
      observations: play.observations,
      horizon: maxSteps ?? task.maxSteps ?? this.config.horizon,
      horizonOverride: maxSteps,
      cell: tables.cells[map.start.row * map.size + map.start.col] as Cell,
      steps: 0,
      terminated: false,
      truncated: false,
      random: createRandom(FROZENLAKE_FAMILY, taskId, seed),
      lastError: undefined,
    };
  }

  private observe(ep: Episode, error?: ActionError): Observation {
    const showCoordinates = this.config.showCoordinates;
    return observeEpisode(ep, error === undefined ? { showCoordinates } : { showCoordinates, error });
  }
}

/**
 * A FrozenLake environment with Gymnasium dynamics (see `FrozenLakeConfigSchema` for the slip model).
 * Throws a UserError on a bad config.
 */
export function createFrozenLakeEnvironment(
  config: FrozenLakeConfigInput = {},
  options: FrozenLakeEnvironmentOptions = {},
): FrozenLakeEnvironment {
  const resolved = parseFrozenLakeConfig(config);
  const suite = options.suite ?? createFrozenLakeSuite(resolved.suite ?? {});
  return new FrozenLake(resolved, suite);
}
