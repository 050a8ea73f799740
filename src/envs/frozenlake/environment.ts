import { type Action, MoveActionSchema } from "../../core/action.ts";
import type {
  Capabilities,
  Environment,
  EnvironmentSnapshot,
  ResetOptions,
  StepResult,
} from "../../core/environment.ts";
import { ResetOptionsSchema } from "../../core/environment.ts";
import { UserError } from "../../core/errors.ts";
import type { ActionError, Observation } from "../../core/observation.ts";
import { createRandom } from "../../core/random.ts";
import { readSnapshot, stateDigest } from "../../core/snapshot.ts";
import type { TaskSuite } from "../../core/task.ts";
import type { VerifierResult } from "../../core/verifier.ts";
import { type FrozenLakeConfig, type FrozenLakeConfigInput, parseFrozenLakeConfig } from "./config.ts";
import { holeFallProbabilities, isGoodMove, type SlipDynamics, sampleTransition } from "./dynamics.ts";
import {
  type Episode,
  EpisodeStateSchema,
  episodeStateProblem,
  episodeStatus,
  observeEpisode,
  saveEpisode,
} from "./episode.ts";
import { type FrozenLakeMap, tileAt } from "./map.ts";
import { goalDistances, shortestSafeMove } from "./path.ts";
import { createFrozenLakeSuite, FROZENLAKE_FAMILY, mapOfTask } from "./suite.ts";

const INVALID_ACTION_MESSAGE =
  'FrozenLake accepts only {"type":"move","direction":"left"|"down"|"right"|"up"}';

export interface FrozenLakeEnvironment extends Environment {
  readonly config: FrozenLakeConfig;
  readonly dynamics: SlipDynamics;
  snapshot(): Promise<EnvironmentSnapshot>;
  restore(snapshot: EnvironmentSnapshot): Promise<Observation>;
  oracleAction(): Promise<Action | null>;
}

export interface FrozenLakeEnvironmentOptions {
  /** Play this suite's tasks instead of the one `config.suite` describes (tasks carry their map in params). */
  suite?: TaskSuite;
}

class FrozenLake implements FrozenLakeEnvironment {
  readonly family = FROZENLAKE_FAMILY;
  readonly capabilities: Capabilities = { snapshot: true, replay: true, deterministic: true };
  readonly dynamics: SlipDynamics;
  private episode: Episode | undefined;
  private closed = false;
  private readonly maps = new Map<string, FrozenLakeMap>();
  private readonly distances = new Map<string, Int32Array>();

  constructor(
    readonly config: FrozenLakeConfig,
    readonly suite: TaskSuite,
  ) {
    this.dynamics = config.dynamics;
  }

  async reset(options: ResetOptions): Promise<Observation> {
    this.ensureOpen("reset");
    const parsed = ResetOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new UserError(
        "frozenlake.bad_reset",
        `FrozenLake reset needs {taskId: string, seed: non-negative integer, maxSteps?: positive integer}; got ${JSON.stringify(options)}.`,
      );
    }
    this.episode = this.freshEpisode(parsed.data.taskId, parsed.data.seed, parsed.data.maxSteps);
    return this.observe(this.episode);
  }

  async step(action: Action): Promise<StepResult> {
    const ep = this.requireEpisode("step");
    if (ep.terminated || ep.truncated) {
      const observation = this.observe(ep, {
        code: "episode_ended",
        message: "The FrozenLake episode has ended; call reset({taskId, seed}) to start a new one.",
      });
      return { observation, reward: 0, terminated: ep.terminated, truncated: ep.truncated, info: {} };
    }
    const from = { ...ep.cell };
    const holeProbabilities = holeFallProbabilities(ep.map, from, this.dynamics);
    const move = MoveActionSchema.safeParse(action);
    ep.steps++;
    if (!move.success) {
      const given = action as { type?: unknown; direction?: unknown } | null;
      const got =
        given?.type === "move"
          ? `direction ${JSON.stringify(given.direction)}`
          : `type ${JSON.stringify(given?.type ?? null)}`;
      ep.lastError = { code: "invalid_action", message: `${INVALID_ACTION_MESSAGE}; got ${got}.` };
      ep.truncated = ep.steps >= ep.horizon;
      const info = { holeProbabilities, from, intended: null, actual: null, slipped: false, invalid: true };
      return { observation: this.observe(ep), reward: 0, terminated: false, truncated: ep.truncated, info };
    }
    const intended = move.data.direction;
    const t = sampleTransition(ep.map, from, intended, this.dynamics, ep.random);
    ep.cell = t.cell;
    ep.lastError = undefined;
    const tile = tileAt(ep.map, t.cell);
    ep.terminated = tile === "H" || tile === "G";
    ep.truncated = !ep.terminated && ep.steps >= ep.horizon;
    const info = {
      holeProbabilities,
      from,
      intended,
      actual: t.actual,
      slipped: t.slipped,
      goodMove: isGoodMove(ep.map, from, intended, this.dynamics),
    };
    return {
      observation: this.observe(ep),
      reward: tile === "G" ? 1 : 0,
      terminated: ep.terminated,
      truncated: ep.truncated,
      info,
    };
  }

  async evaluate(): Promise<VerifierResult> {
    const ep = this.requireEpisode("evaluate");
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

  async fingerprint(): Promise<string> {
    const ep = this.requireEpisode("fingerprint");
    const { lastError: _observational, ...state } = saveEpisode(ep);
    return stateDigest(this.family, ep.task.id, state);
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    const ep = this.requireEpisode("snapshot");
    return { family: this.family, taskId: ep.task.id, seed: ep.seed, state: saveEpisode(ep) };
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    this.ensureOpen("restore");
    const snap = readSnapshot(
      snapshot,
      this.family,
      EpisodeStateSchema,
      "frozenlake.bad_snapshot",
      "FrozenLake",
    );
    const s = snap.state;
    const ep = this.freshEpisode(snap.taskId, snap.seed, s.horizon);
    const problem = episodeStateProblem(ep.map, s, ep.horizon);
    if (problem !== undefined) {
      throw new UserError(
        "frozenlake.bad_snapshot",
        `FrozenLake restore(): the snapshot of task "${ep.task.id}" is not a state an episode can reach: ${problem}. Restore only snapshots that snapshot() made on this task's map, unedited.`,
      );
    }
    ep.cell = { row: s.row, col: s.col };
    ep.steps = s.steps;
    ep.terminated = s.terminated;
    ep.truncated = s.truncated;
    ep.random.setState(s.random);
    ep.lastError = s.lastError;
    this.episode = ep;
    return this.observe(ep);
  }

  async oracleAction(): Promise<Action | null> {
    const ep = this.requireEpisode("oracleAction");
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
    this.closed = true;
    this.episode = undefined;
  }

  private freshEpisode(taskId: string, seed: number, maxSteps: number | undefined): Episode {
    const task = this.suite.get(taskId);
    let map = this.maps.get(taskId);
    if (!map) {
      map = mapOfTask(task);
      this.maps.set(taskId, map);
    }
    return {
      task,
      seed,
      map,
      horizon: maxSteps ?? task.maxSteps ?? this.config.horizon,
      horizonOverride: maxSteps,
      cell: { ...map.start },
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

  private ensureOpen(operation: string): void {
    if (this.closed) {
      throw new UserError(
        "frozenlake.closed",
        `FrozenLake ${operation}() after close(); create a new environment.`,
      );
    }
  }

  private requireEpisode(operation: string): Episode {
    this.ensureOpen(operation);
    if (!this.episode) {
      throw new UserError(
        "frozenlake.not_reset",
        `FrozenLake ${operation}() before reset(); call reset({taskId, seed}) first.`,
      );
    }
    return this.episode;
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
