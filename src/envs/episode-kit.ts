import type { z } from "zod";
import type { Action } from "../core/action.ts";
import {
  type Environment,
  type EnvironmentSnapshot,
  type ResetOptions,
  ResetOptionsSchema,
  type StepResult,
} from "../core/environment.ts";
import { InternalError, UserError } from "../core/errors.ts";
import type { ActionError, Observation } from "../core/observation.ts";
import type { Random, RandomState } from "../core/random.ts";
import { readSnapshot, stateDigest } from "../core/snapshot.ts";

/** An environment with exact snapshots and an oracle (FrozenLake, chess, terminal). */
export interface SnapshotEnvironment extends Environment {
  snapshot(): Promise<EnvironmentSnapshot>;
  restore(snapshot: EnvironmentSnapshot): Promise<Observation>;
  oracleAction(): Promise<Action | null>;
}

/** What identifies a live episode and its saved state (the snapshot `state`). */
export interface EpisodeRecord {
  taskId: string;
  seed: number;
  state: { lastError?: unknown };
}

/**
 * The episode bookkeeping every symbolic environment shares (FrozenLake, chess, terminal): the open /
 * closed guard, the live episode slot, reset-option and snapshot parsing, snapshot and fingerprint
 * shapes, and the step result of an ended episode. Error codes are `<family>.closed`,
 * `<family>.not_reset`, `<family>.bad_reset` and `<family>.bad_snapshot`; messages name the environment
 * by `name` (e.g. "FrozenLake").
 */
export class EpisodeSlot<E> {
  private live: E | undefined;
  private closed = false;

  /** `record` gives the task, seed and saved state of an episode (for `snapshot()` and `fingerprint()`). */
  constructor(
    readonly family: string,
    readonly name: string,
    private readonly record?: (episode: E) => EpisodeRecord,
  ) {}

  /** Throws `<family>.closed` after close(). */
  ensureOpen(operation: string): void {
    if (this.closed) {
      throw new UserError(
        `${this.family}.closed`,
        `${this.name} ${operation}() after close(); create a new environment.`,
      );
    }
  }

  /** The live episode; throws `<family>.closed` after close() and `<family>.not_reset` before reset(). */
  require(operation: string): E {
    this.ensureOpen(operation);
    if (this.live === undefined) {
      throw new UserError(
        `${this.family}.not_reset`,
        `${this.name} ${operation}() before reset(); call reset({taskId, seed}) first.`,
      );
    }
    return this.live;
  }

  /** Makes `episode` the live one and returns it. */
  set(episode: E): E {
    this.live = episode;
    return episode;
  }

  close(): void {
    this.closed = true;
    this.live = undefined;
  }

  /** The parsed reset options; `expected` describes the accepted shape in the `<family>.bad_reset` error. */
  parseReset(options: ResetOptions, expected: string): ResetOptions {
    this.ensureOpen("reset");
    // Per-episode hot path: the common well-formed shape is checked by hand (a subset of what the
    // schema accepts, with the schema's output); anything else goes through the schema.
    const given = options as Partial<Record<keyof ResetOptions, unknown>> | null;
    if (
      typeof given === "object" &&
      given !== null &&
      typeof given.taskId === "string" &&
      given.taskId.length > 0 &&
      Number.isSafeInteger(given.seed) &&
      (given.seed as number) >= 0 &&
      (given.maxSteps === undefined ||
        (Number.isSafeInteger(given.maxSteps) && (given.maxSteps as number) > 0))
    ) {
      const { taskId, seed, maxSteps } = given as ResetOptions;
      return maxSteps === undefined ? { taskId, seed } : { taskId, seed, maxSteps };
    }
    const parsed = ResetOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new UserError(
        `${this.family}.bad_reset`,
        `${this.name} reset needs ${expected}; got ${JSON.stringify(options)}.`,
      );
    }
    return parsed.data;
  }

  /** A snapshot of this family read back with `stateSchema`; throws `<family>.bad_snapshot` otherwise. */
  readSnapshot<S extends z.ZodType>(
    snapshot: EnvironmentSnapshot,
    stateSchema: S,
  ): { taskId: string; seed: number; state: z.infer<S> } {
    this.ensureOpen("restore");
    return readSnapshot(snapshot, this.family, stateSchema, `${this.family}.bad_snapshot`, this.name);
  }

  /** The `<family>.bad_snapshot` error for a snapshot that parses but names an unreachable state. */
  badSnapshot(message: string): UserError {
    return new UserError(`${this.family}.bad_snapshot`, message);
  }

  /** The live episode's snapshot (needs `record`). */
  snapshot(): EnvironmentSnapshot {
    const { taskId, seed, state } = this.recordOf("snapshot");
    return this.snapshotOf(taskId, seed, state);
  }

  /** The live episode's state digest, its observational `lastError` left out (needs `record`). */
  fingerprint(): string {
    const { taskId, state } = this.recordOf("fingerprint");
    return this.fingerprintOf(taskId, state);
  }

  private recordOf(operation: string): EpisodeRecord {
    const episode = this.require(operation);
    if (!this.record) {
      throw new InternalError(
        "episode_slot.no_record",
        `${this.name} ${operation}(): the environment's EpisodeSlot was built without a record function; pass one to its constructor.`,
      );
    }
    return this.record(episode);
  }

  snapshotOf(taskId: string, seed: number, state: unknown): EnvironmentSnapshot {
    return { family: this.family, taskId, seed, state };
  }

  /** The state digest of a saved state without its observational `lastError`. */
  fingerprintOf<S extends { lastError?: unknown }>(taskId: string, saved: S): string {
    const { lastError: _observational, ...state } = saved;
    return stateDigest(this.family, taskId, state);
  }
}

/** The error an ended episode's step shows. */
export function episodeEndedError(name: string, advice = " to start a new one."): ActionError {
  return {
    code: "episode_ended",
    message: `The ${name} episode has ended; call reset({taskId, seed})${advice}`,
  };
}

/** The step result of an action sent after the episode ended: nothing changes and no reward. */
export function endedStep(
  observation: Observation,
  ends: { terminated: boolean; truncated: boolean },
  info: Record<string, unknown> = {},
): StepResult {
  return { observation, reward: 0, terminated: ends.terminated, truncated: ends.truncated, info };
}

/** Restores the parts every restored episode shares (its seeded stream and its last error); returns it. */
export function resumeEpisode<T extends { random: Random; lastError: ActionError | undefined }>(
  episode: T,
  saved: { random: RandomState; lastError?: ActionError | undefined },
): T {
  episode.random.setState(saved.random);
  episode.lastError = saved.lastError;
  return episode;
}

/** `fingerprint()` and `snapshot()` of an environment whose slot has a `record` function. */
export abstract class RecordedEpisodes<E> {
  protected abstract readonly slot: EpisodeSlot<E>;

  async fingerprint(): Promise<string> {
    return this.slot.fingerprint();
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    return this.slot.snapshot();
  }
}
