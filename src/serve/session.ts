import { randomUUID } from "node:crypto";
import {
  ActionSchema,
  canonicalJson,
  type Environment,
  type EnvironmentSnapshot,
  isRehearsalError,
  type Observation,
  type StepRecord,
  type Task,
  type VerifierResult,
} from "../core/index.ts";
import { clientError, errorBody, SERVE_ERROR_CODES } from "./errors.ts";
import type { ServeRecorder } from "./recording.ts";
import {
  type ObservationPayload,
  type ResetData,
  ResetDataSchema,
  type SessionState,
  type WireSnapshot,
  WireSnapshotSchema,
} from "./schemas.ts";
import { parseWith, resetTask } from "./validate.ts";
import { NO_TRANSITION, observationPayload, type WireTransition } from "./wire-observation.ts";

/** The step limit when neither the reset nor the task gives one (as the local runner's). */
const SESSION_STEP_CAP = 1000;

interface Episode {
  id: string;
  trajectoryId: string | undefined;
  task: Task;
  seed: number;
  stepCount: number;
  limit: number;
  done: boolean;
  observation: Observation;
}

export interface SessionDeps {
  createEnvironment: () => Promise<Environment>;
  recorder: ServeRecorder;
  nowMs: () => number;
}

/**
 * One client's session: its own environment (created on the first reset, closed with the session), the
 * current episode, and a queue that runs its operations one at a time in arrival order. An environment
 * failure ends the episode `infra_failed` and discards the environment (the next reset builds a new one).
 */
export class ServeSession {
  readonly id = randomUUID();
  lastActivityMs: number;
  private env: Environment | undefined;
  private episode: Episode | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private episodes = 0;
  private pending = 0;
  /** Who opened the session: only that transport may use it. */
  readonly transport: "http" | "ws";

  constructor(
    private readonly deps: SessionDeps,
    transport: "http" | "ws",
  ) {
    this.transport = transport;
    this.lastActivityMs = deps.nowMs();
  }

  /** An operation is queued or running (the idle sweep leaves the session alone). */
  get busy(): boolean {
    return this.pending > 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `op` after the operations before it; the session counts as active meanwhile. */
  run<T>(op: () => Promise<T>): Promise<T> {
    this.lastActivityMs = this.deps.nowMs();
    this.pending += 1;
    const next = this.queue.then(() => {
      if (this.closed)
        throw clientError(
          SERVE_ERROR_CODES.sessionClosed,
          `session ${this.id} is closed; open a new one with reset`,
        );
      return op();
    });
    this.queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next.finally(() => {
      this.pending -= 1;
      this.lastActivityMs = this.deps.nowMs();
    });
  }

  async reset(raw: unknown): Promise<ObservationPayload> {
    const data: ResetData = parseWith(
      ResetDataSchema,
      raw ?? {},
      SERVE_ERROR_CODES.invalidMessage,
      "reset data",
    );
    if (this.episode && !this.episode.done)
      this.endOpen("aborted", "serve.reset_mid_episode", "the client reset mid-episode");
    const env = await this.environment();
    const task = resetTask(env.suite, data.task_id);
    const seed = data.seed ?? task.seed;
    const episodeId = data.episode_id ?? `${this.id.slice(0, 8)}-${this.episodes}`;
    this.episodes += 1;
    const trajectoryId = this.deps.recorder.startEpisode({ episodeId, sessionId: this.id, task, seed });
    const limit = data.max_steps ?? task.maxSteps ?? SESSION_STEP_CAP;
    const episode: Episode = {
      id: episodeId,
      trajectoryId,
      task,
      seed,
      stepCount: 0,
      limit,
      done: false,
      observation: { text: "" },
    };
    this.episode = episode;
    episode.observation = await this.guard(() =>
      env.reset({
        taskId: task.id,
        seed,
        ...(data.max_steps === undefined ? {} : { maxSteps: data.max_steps }),
      }),
    );
    return this.payload(episode, NO_TRANSITION);
  }

  async step(raw: unknown): Promise<ObservationPayload> {
    const episode = this.requireEpisode("step");
    const action = parseWith(ActionSchema, raw, SERVE_ERROR_CODES.invalidAction, "action");
    const env = this.env!;
    if (episode.done) {
      // Stepping an ended episode is data (the environment's `episode_ended` observation), not recorded.
      const r = await this.guard(() => env.step(action));
      return this.payload(episode, { ...NO_TRANSITION, reward: r.reward, info: r.info }, r.observation);
    }
    const shown = episode.observation;
    const timeMs = this.deps.nowMs();
    const result = await this.guard(() => env.step(action));
    episode.stepCount += 1;
    const truncated = result.truncated || (!result.terminated && episode.stepCount >= episode.limit);
    const record: StepRecord = {
      index: episode.stepCount - 1,
      observation: shown,
      action,
      raw: canonicalJson(action),
      reward: result.reward,
      terminated: result.terminated,
      truncated,
      info: result.info,
      timeMs,
    };
    this.deps.recorder.step(episode.trajectoryId, record);
    episode.observation = result.observation;
    let outcome: VerifierResult | undefined;
    if (result.terminated || truncated) {
      episode.done = true;
      outcome = await this.guard(() => env.evaluate());
      this.deps.recorder.endEpisode(episode.trajectoryId, {
        status: "complete",
        finalObservation: result.observation,
        outcome,
      });
    }
    const { reward, terminated, info } = result;
    return this.payload(episode, { reward, terminated, truncated, info, ...(outcome ? { outcome } : {}) });
  }

  state(): SessionState {
    const e = this.episode;
    const caps = this.env?.capabilities ?? { snapshot: false, replay: false, deterministic: false };
    return {
      session_id: this.id,
      episode_id: e?.id ?? null,
      step_count: e?.stepCount ?? 0,
      task_id: e?.task.id ?? null,
      seed: e?.seed ?? null,
      done: e?.done ?? false,
      capabilities: { ...caps },
    };
  }

  async snapshot(): Promise<WireSnapshot> {
    const episode = this.requireEpisode("snapshot");
    const env = this.requireSnapshots();
    const snap = await this.guard(() => env.snapshot!());
    return { ...snap, step_count: episode.stepCount };
  }

  async restore(raw: unknown): Promise<ObservationPayload> {
    const episode = this.requireEpisode("restore");
    const env = this.requireSnapshots();
    const snap = parseWith(WireSnapshotSchema, raw, SERVE_ERROR_CODES.invalidMessage, "snapshot");
    if (snap.taskId !== episode.task.id || snap.family !== env.family)
      throw clientError(
        SERVE_ERROR_CODES.invalidMessage,
        `restore: the snapshot is of ${snap.family}/${snap.taskId}, but this session plays ${env.family}/${episode.task.id}; reset to that task first`,
      );
    const { step_count, ...state } = snap;
    if (!episode.done)
      this.endOpen("aborted", "serve.restored", "the client restored a snapshot mid-episode");
    episode.observation = await this.guard(() => env.restore!(state as EnvironmentSnapshot));
    episode.stepCount = step_count;
    // A restored episode is not recorded again (its steps would not start at 0).
    episode.trajectoryId = undefined;
    episode.done = false;
    return this.payload(episode, NO_TRANSITION);
  }

  async fingerprint(): Promise<string> {
    this.requireEpisode("fingerprint");
    const env = this.env!;
    return this.guard(() => env.fingerprint());
  }

  /** Ends the open episode `aborted` and closes the environment. Idempotent. */
  async close(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.episode && !this.episode.done) this.endOpen("aborted", "serve.session_closed", reason);
    const env = this.env;
    this.env = undefined;
    await env?.close().catch(() => undefined);
  }

  private async environment(): Promise<Environment> {
    this.env ??= await this.guard(() => this.deps.createEnvironment());
    return this.env;
  }

  private requireEpisode(op: string): Episode {
    if (!this.episode || !this.env)
      throw clientError(
        SERVE_ERROR_CODES.notReset,
        `${op}: session ${this.id} has no episode; send reset first`,
      );
    return this.episode;
  }

  private requireSnapshots(): Environment {
    const env = this.env!;
    if (!env.capabilities.snapshot || !env.snapshot || !env.restore)
      throw clientError(
        SERVE_ERROR_CODES.snapshotUnsupported,
        `the ${env.family} environment does not declare snapshot/restore; replay the actions from reset instead`,
      );
    return env;
  }

  /**
   * Runs an environment call; an infrastructure failure ends the episode `infra_failed`, discards the
   * environment and is rethrown (the client gets an `environment` error, never a reward).
   */
  private async guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e) {
      if (isRehearsalError(e) && e.category === "environment") {
        const body = errorBody(e);
        if (this.episode && !this.episode.done) this.endOpen("infra_failed", body.code, body.message);
        this.episode = undefined;
        const env = this.env;
        this.env = undefined;
        await env?.close().catch(() => undefined);
      }
      throw e;
    }
  }

  private endOpen(status: "aborted" | "infra_failed", code: string, message: string): void {
    const episode = this.episode!;
    episode.done = true;
    const category = status === "infra_failed" ? "environment" : "user";
    this.deps.recorder.endEpisode(episode.trajectoryId, {
      status,
      finalObservation: episode.observation,
      error: { code, category, message },
    });
  }

  private payload(
    episode: Episode,
    t: WireTransition,
    shown: Observation = episode.observation,
  ): ObservationPayload {
    const ids = {
      session_id: this.id,
      episode_id: episode.id,
      task_id: episode.task.id,
      step_count: episode.stepCount,
    };
    return observationPayload(ids, shown, t, episode.done);
  }
}
