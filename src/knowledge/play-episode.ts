import type { Environment } from "../core/environment.ts";
import { EnvironmentError } from "../core/errors.ts";
import type { Observation } from "../core/observation.ts";
import type { Policy } from "../core/policy.ts";
import type { Random } from "../core/random.ts";
import { createRuntime, type Runtime } from "../core/runtime.ts";
import type { Task } from "../core/task.ts";
import { runEpisode } from "../rollout/run-episode.ts";
import type { RunStore } from "../store/contract.ts";
import { createMemoryStore } from "../store/memory-store.ts";
import { actionLabel } from "./action-label.ts";
import { KnowledgeEpisodeError } from "./errors.ts";
import type { TransitionInput } from "./experience-buffer.ts";

/** The state key of an observation (default: the environment's structural `observation.stateKey`). */
export type StateKeyFn = (observation: Observation) => string | undefined;

export const observationStateKey: StateKeyFn = (observation) => observation.stateKey;

/** Where SKL episodes are recorded: a run of the store, and the runtime that stamps their steps. */
export interface EpisodeRecorder {
  store: RunStore;
  runId: string;
  runtime: Runtime;
  /**
   * Once aborted (SIGINT/SIGTERM), the episode in flight ends `aborted` at its next step and no new
   * unit of work starts (see `unlessStopped`).
   */
  signal?: AbortSignal;
}

/** Whether the recorder's signal asked the experiment to stop. */
export function stopRequested(recorder: EpisodeRecorder): boolean {
  return recorder.signal?.aborted === true;
}

/**
 * Runs one unit of an experiment's work (an iteration, a rate) unless a stop was requested: undefined
 * when the signal aborted before it started or while it ran (the episode in flight was then recorded
 * `aborted` and its failure is the stop, not an error); its result when it completed.
 */
export async function unlessStopped<T>(
  recorder: EpisodeRecorder,
  body: () => Promise<T>,
): Promise<T | undefined> {
  if (stopRequested(recorder)) return undefined;
  try {
    return await body();
  } catch (e) {
    if (stopRequested(recorder)) return undefined;
    throw e;
  }
}

/** A recorder on a fresh in-memory store with a deterministic runtime (library calls without a store). */
export function memoryRecorder(seed: string, kind = "skl"): EpisodeRecorder {
  const runtime = createRuntime({ seed });
  const store = createMemoryStore();
  const runId = `${kind}-memory`;
  store.createRun({
    id: runId,
    kind,
    seed,
    config: {},
    codeVersion: "memory",
    createdAtMs: runtime.clock.nowMs(),
  });
  return { store, runId, runtime };
}

/** The tasks already written to each recorder's run. */
const tasksWritten = new WeakMap<EpisodeRecorder, Set<string>>();

export interface PlayedStep extends TransitionInput {
  observation: Observation;
  nextObservation: Observation;
}

export interface PlayedEpisode {
  id: string;
  /** The trajectory in the recorder's store. */
  trajectoryId: string;
  taskId: string;
  seed: number;
  steps: PlayedStep[];
  success: boolean;
  return: number;
}

export interface PlayEpisodeOptions {
  id: string;
  env: Environment;
  policy: Policy;
  task: Task;
  seed: number;
  /** Position of the episode in its run (the store lists trajectories by it). */
  episodeIndex: number;
  maxSteps: number;
  temperature: number;
  /** Per-step policy randomness (replaces the episode loop's own keys). */
  random: (step: number) => Random;
  recorder: EpisodeRecorder;
  stateKey?: StateKeyFn;
}

/**
 * Plays one episode through the shared episode loop (`runEpisode`: every step recorded in the store),
 * then reads it back as transitions keyed by `stateKey`. A candidate that is not a valid action is
 * recorded, steps nothing, and counts against `maxSteps`. An infrastructure failure is rethrown (the
 * trajectory stays recorded as `infra_failed`). Once the recorder's signal aborted, no episode starts and
 * the one in flight ends `aborted` at its next step; both throw the signal's reason.
 */
export async function playEpisode(options: PlayEpisodeOptions): Promise<PlayedEpisode> {
  const { recorder, task, policy } = options;
  if (recorder.signal) {
    // Let the event loop run first: an in-process environment resolves every await as a microtask, so
    // a SIGINT/SIGTERM handler would otherwise not run before the whole experiment had finished.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // After a stop request no new episode starts (none is recorded): the caller's unit of work ends.
    recorder.signal.throwIfAborted();
  }
  const stateKey = options.stateKey ?? observationStateKey;
  const keyed: Policy = {
    name: policy.name,
    propose: (context, propose) =>
      policy.propose(context, { ...propose, random: options.random(context.stepIndex) }),
  };
  const trajectoryId = `${recorder.runId}:${options.id}`;
  const written = tasksWritten.get(recorder) ?? new Set<string>();
  if (!written.has(task.id)) recorder.store.putTask(recorder.runId, task);
  written.add(task.id);
  tasksWritten.set(recorder, written);
  const result = await runEpisode(
    {
      env: options.env,
      policy: keyed,
      runtime: recorder.runtime,
      store: recorder.store,
      ...(recorder.signal ? { signal: recorder.signal } : {}),
    },
    {
      runId: recorder.runId,
      trajectoryId,
      task,
      episodeIndex: options.episodeIndex,
      seed: options.seed,
      maxSteps: options.maxSteps,
      temperature: options.temperature,
      meta: { sklEpisode: options.id },
    },
  );
  const trajectory = recorder.store.getTrajectory(trajectoryId);
  if (result.status !== "complete" || !trajectory) {
    throw new EnvironmentError(
      result.error?.code ?? "knowledge.episode_failed",
      `SKL episode "${options.id}" on task "${task.id}" failed: ${result.error?.message ?? "not recorded"}`,
    );
  }
  const steps: PlayedStep[] = [];
  let total = 0;
  trajectory.steps.forEach((record, i) => {
    const state = stateKey(record.observation);
    if (state === undefined)
      throw new KnowledgeEpisodeError(options.id, `task "${task.id}" gives observations without a state key`);
    if (record.action === null) return;
    const nextObservation =
      trajectory.steps[i + 1]?.observation ?? trajectory.finalObservation ?? record.observation;
    const info = record.info;
    steps.push({
      state,
      action: record.action,
      actionLabel: actionLabel(record.action),
      reward: record.reward,
      terminal: record.terminated,
      truncated: record.truncated,
      nextState: stateKey(nextObservation) ?? state,
      ...(typeof info.slipped === "boolean" ? { slipped: info.slipped } : {}),
      ...(typeof info.goodMove === "boolean" ? { goodMove: info.goodMove } : {}),
      observation: record.observation,
      nextObservation,
    });
    total += record.reward;
  });
  return {
    id: options.id,
    trajectoryId,
    taskId: task.id,
    seed: options.seed,
    steps,
    success: result.outcome?.success ?? false,
    return: total,
  };
}
