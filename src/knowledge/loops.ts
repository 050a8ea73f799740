import { z } from "zod";
import type { Environment } from "../core/environment.ts";
import { stableSeed } from "../core/hash.ts";
import type { Observation } from "../core/observation.ts";
import type { PolicyContext } from "../core/policy.ts";
import { createRandom } from "../core/random.ts";
import type { Task } from "../core/task.ts";
import { type BufferedEpisode, ExperienceBuffer, type Transition } from "./experience-buffer.ts";
import type { KnowledgeDraft } from "./knowledge-entry.ts";
import { createKnowledgePolicy } from "./knowledge-policy.ts";
import { createKnowledgeTable, type KnowledgeTable } from "./knowledge-table.ts";
import {
  type EpisodeRecorder,
  memoryRecorder,
  observationStateKey,
  type PlayedEpisode,
  playEpisode,
  type StateKeyFn,
  unlessStopped,
} from "./play-episode.ts";
import { round6 } from "./statistics.ts";
import type { KnowledgeWriter } from "./writer.ts";

/** The SKL loops (seed method §2), on any environment whose observations have a state key. */
export const SKL_METHODS = [
  "no-reflection",
  "trajectory-reflection",
  "stateful-root",
  "stateful-bootstrap",
] as const;
export const SklMethodSchema = z.enum(SKL_METHODS);
export type SklMethod = z.infer<typeof SklMethodSchema>;

export interface LoopBudget {
  /** Continuations per update (N, default 3). */
  n: number;
  /** Monte Carlo horizon (H, default 15). */
  hMc: number;
  /** TD horizon (default 1). */
  hTd: number;
  scope: "all" | "last-epoch";
}

/** A coarser key learned besides the structural one (e.g. one that recurs across tasks). */
export interface KeyView {
  /** Names the buffered view (`<episode id>@<name>`). */
  name: string;
  /** The key of an observation of task `taskId`; undefined keeps the structural key. */
  key(observation: Observation, taskId: string): string | undefined;
}

export interface SklLoopOptions {
  method: SklMethod;
  env: Environment;
  trainTasks: ReadonlyArray<Task>;
  testTasks: ReadonlyArray<Task>;
  iterations: number;
  episodesPerMap: number;
  evalEpisodesPerMap: number;
  maxSteps: number;
  writer: KnowledgeWriter;
  budget: LoopBudget;
  temperature: number;
  optimisticPrior: number;
  /** Which episodes the fully bootstrapping loop sweeps backward (SEEDS.md: failed ones). */
  bootstrapOn: "failed" | "all";
  /**
   * Also learn under these keys so knowledge transfers across tasks (none: only the structural key). With
   * any, the trajectory baseline also learns under the task-independent path key.
   */
  generalKeys: ReadonlyArray<KeyView>;
  /** The structural key (default `observation.stateKey`). */
  stateKey?: StateKeyFn;
  seed: string;
  /** Where episodes are recorded (default: a fresh in-memory store). */
  recorder?: EpisodeRecorder;
}

export interface SplitMetrics {
  episodes: number;
  successes: number;
  successRate: number;
  actions: number;
  goodMoves: number;
  goodMoveRatio: number;
}

export interface IterationMetrics {
  iteration: number;
  /** Training rollouts of this iteration (with the knowledge learned before it). */
  train: SplitMetrics;
  /** Held-out maps played with a frozen copy of the same knowledge. */
  test: SplitMetrics;
  /** train.successRate - test.successRate. */
  successDrop: number;
  /** Entries (keys) in the table after this iteration's update. */
  knowledgeKeys: number;
  /** Versions written by this iteration's update. */
  writes: number;
}

export interface SklLoopResult {
  method: SklMethod;
  /** The completed iterations (fewer than asked when the recorder's signal stopped the loop). */
  iterations: IterationMetrics[];
  table: KnowledgeTable;
  /** True when the recorder's signal stopped the loop before its last iteration completed. */
  interrupted: boolean;
}

function metricsOf(episodes: ReadonlyArray<PlayedEpisode>): SplitMetrics {
  const successes = episodes.filter((e) => e.success).length;
  let actions = 0;
  let goodMoves = 0;
  for (const e of episodes) {
    for (const s of e.steps) {
      if (s.goodMove === undefined) continue;
      actions += 1;
      if (s.goodMove) goodMoves += 1;
    }
  }
  return {
    episodes: episodes.length,
    successes,
    successRate: round6(episodes.length === 0 ? 0 : successes / episodes.length),
    actions,
    goodMoves,
    goodMoveRatio: round6(actions === 0 ? 0 : goodMoves / actions),
  };
}

/** The state-keyed views of an episode: structural keys, then one view per general key. */
function viewsOf(options: SklLoopOptions, episode: PlayedEpisode, epoch: number): BufferedEpisode[] {
  const transitions = episode.steps.map(({ observation: _o, nextObservation: _n, ...t }) => t);
  const views: BufferedEpisode[] = [{ id: episode.id, taskId: episode.taskId, epoch, transitions }];
  for (const view of options.generalKeys) {
    views.push({
      id: `${episode.id}@${view.name}`,
      taskId: episode.taskId,
      epoch,
      transitions: episode.steps.map(({ observation, nextObservation, ...t }) => ({
        ...t,
        state: view.key(observation, episode.taskId) ?? t.state,
        nextState: view.key(nextObservation, episode.taskId) ?? t.nextState,
      })),
    });
  }
  return views;
}

function pathKey(taskId: string, step: number): string {
  return `path:${taskId}:step=${step}`;
}

function policyKeys(options: SklLoopOptions): (context: PolicyContext) => string[] {
  const generalise = options.generalKeys.length > 0;
  if (options.method === "trajectory-reflection") {
    return (c) => [pathKey(c.task.id, c.stepIndex), ...(generalise ? [pathKey("*", c.stepIndex)] : [])];
  }
  const stateKey = options.stateKey ?? observationStateKey;
  return (c) =>
    [stateKey(c.observation), ...options.generalKeys.map((v) => v.key(c.observation, c.task.id))].filter(
      (k): k is string => k !== undefined,
    );
}

class Updater {
  writes = 0;
  constructor(
    private readonly options: SklLoopOptions,
    private readonly table: KnowledgeTable,
    private readonly buffer: ExperienceBuffer,
  ) {}

  /** Monte Carlo state understanding at `key` from up to N continuations of up to H steps. */
  async understand(key: string, epoch: number): Promise<void> {
    const { n, hMc, scope } = this.options.budget;
    const prior = this.table.read(key);
    const continuations = this.buffer.continuations(key, { n, h: hMc, scope });
    const draft = await this.options.writer.understand({ key, epoch, prior, continuations });
    if (draft) await this.commit(key, epoch, prior?.version ?? 0, draft);
  }

  /** TD bootstrapping at `key` from one-step continuations and the successors' entries. */
  async bootstrap(key: string, epoch: number): Promise<void> {
    const { n, hTd, scope } = this.options.budget;
    const prior = this.table.read(key);
    const continuations = this.buffer.continuations(key, { n, h: hTd, scope });
    const draft = await this.options.writer.bootstrap({
      key,
      epoch,
      prior,
      continuations,
      successor: (k) => this.table.read(k),
    });
    if (draft) await this.commit(key, epoch, prior?.version ?? 0, draft);
  }

  async reflect(
    view: BufferedEpisode,
    episode: PlayedEpisode,
    epoch: number,
    taskKey: string,
  ): Promise<void> {
    const transitions = this.buffer.transitionsOf(view.id) as Transition[];
    const drafts = await this.options.writer.reflectTrajectory({
      epoch,
      episode: {
        id: episode.id,
        taskId: episode.taskId,
        transitions,
        success: episode.success,
        return: episode.return,
      },
      pathKey: (step) => pathKey(taskKey, step),
      prior: (k) => this.table.read(k),
    });
    for (const d of drafts) await this.commit(d.key, epoch, d.expectedVersion, d.draft);
  }

  private async commit(
    key: string,
    epoch: number,
    expectedVersion: number,
    draft: KnowledgeDraft,
  ): Promise<void> {
    const result = await this.table.write({ key, epoch, expectedVersion, ...draft });
    if (result.written) this.writes += 1;
  }
}

async function learn(
  options: SklLoopOptions,
  updater: Updater,
  buffer: ExperienceBuffer,
  episodes: ReadonlyArray<PlayedEpisode>,
  epoch: number,
): Promise<void> {
  const perEpisode = episodes.map((e) => ({ episode: e, views: viewsOf(options, e, epoch) }));
  for (const { views } of perEpisode) for (const v of views) buffer.add(v);
  if (options.method === "no-reflection") return;
  for (const { episode, views } of perEpisode) {
    if (episode.steps.length === 0) continue;
    if (options.method === "trajectory-reflection") {
      const exact = views[0] as BufferedEpisode;
      await updater.reflect(exact, episode, epoch, episode.taskId);
      if (options.generalKeys.length > 0) await updater.reflect(exact, episode, epoch, "*");
      continue;
    }
    for (const view of views) {
      const states = view.transitions.map((t) => t.state);
      if (options.method === "stateful-root") {
        await updater.understand(states[0] as string, epoch);
        continue;
      }
      if (episode.success && options.bootstrapOn === "failed") continue;
      for (let t = states.length - 1; t >= 0; t--) {
        const key = states[t] as string;
        await updater.understand(key, epoch);
        await updater.bootstrap(key, epoch);
      }
    }
  }
}

async function playSplit(
  options: SklLoopOptions,
  recorder: EpisodeRecorder,
  table: KnowledgeTable,
  tasks: ReadonlyArray<Task>,
  split: "train" | "test",
  iteration: number,
  perMap: number,
): Promise<PlayedEpisode[]> {
  const policy = createKnowledgePolicy({
    name: `skl-${options.method}`,
    table,
    keys: policyKeys(options),
    temperature: options.temperature,
    optimisticPrior: options.optimisticPrior,
  });
  const out: PlayedEpisode[] = [];
  for (const [t, task] of tasks.entries()) {
    for (let e = 0; e < perMap; e++) {
      const id = `${options.method}:${split}:${task.id}:i${iteration}:e${e}`;
      out.push(
        await playEpisode({
          id,
          env: options.env,
          policy,
          task,
          // The same slip stream for every method (common random numbers).
          seed: stableSeed(options.seed, "env", split, task.id, iteration, e),
          episodeIndex: (iteration * tasks.length + t) * perMap + e,
          maxSteps: options.maxSteps,
          temperature: options.temperature,
          random: (step) => createRandom(options.seed, "policy", id, step),
          recorder,
          ...(options.stateKey ? { stateKey: options.stateKey } : {}),
        }),
      );
    }
  }
  return out;
}

/**
 * One method's loop: for each of K iterations, play every training map with the current knowledge,
 * play every held-out map with a frozen copy of it, then add the training episodes to the buffer and
 * update the knowledge as the method prescribes:
 * - `no-reflection`: nothing is learned (the policy acts on its prior);
 * - `trajectory-reflection`: path-keyed entries (step index → action outcomes) from whole episodes;
 * - `stateful-root`: MC update of z_{s0} only (N, H = budget.n, budget.hMc);
 * - `stateful-bootstrap`: on failed episodes (all with `bootstrapOn: "all"`), backward from s_{T-1} to s_0: MC (N, H) then TD (N, H = 1).
 */
export async function runSklLoop(options: SklLoopOptions): Promise<SklLoopResult> {
  const table = createKnowledgeTable();
  const buffer = new ExperienceBuffer();
  const updater = new Updater(options, table, buffer);
  const recorder = options.recorder ?? memoryRecorder(options.seed);
  const iterations: IterationMetrics[] = [];
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    // An interrupted iteration is dropped whole: the table learns only after both splits were played.
    const metrics = await unlessStopped(recorder, async () => {
      const train = await playSplit(
        options,
        recorder,
        table,
        options.trainTasks,
        "train",
        iteration,
        options.episodesPerMap,
      );
      const frozen = table.clone().freeze();
      const test = await playSplit(
        options,
        recorder,
        frozen,
        options.testTasks,
        "test",
        iteration,
        options.evalEpisodesPerMap,
      );
      const before = updater.writes;
      await learn(options, updater, buffer, train, iteration);
      const trainMetrics = metricsOf(train);
      const testMetrics = metricsOf(test);
      return {
        iteration,
        train: trainMetrics,
        test: testMetrics,
        successDrop: round6(trainMetrics.successRate - testMetrics.successRate),
        knowledgeKeys: table.size,
        writes: updater.writes - before,
      };
    });
    if (!metrics) return { method: options.method, iterations, table, interrupted: true };
    iterations.push(metrics);
  }
  return { method: options.method, iterations, table, interrupted: false };
}
