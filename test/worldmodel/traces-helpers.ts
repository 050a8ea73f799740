import {
  type Action,
  createRuntime,
  createSequentialIds,
  type Environment,
  type GridDirection,
  type Observation,
  type Policy,
  type Random,
  type StateViewer,
  type Task,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment, type FrozenLakeConfigInput } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import type { RunStore } from "../../src/store/index.ts";
import type { Rule, TraceStep } from "../../src/worldmodel/index.ts";

/** Records a FrozenLake run as `rehearsal run` does: the run, its tasks, then the episodes. */
export async function recordFrozenLakeRun(
  store: RunStore,
  args: { runId: string; taskIds: string[]; episodes: number; policy?: Policy; slippery?: boolean },
): Promise<void> {
  const env = createFrozenLakeEnvironment({ slippery: args.slippery ?? true });
  const tasks = args.taskIds.map((id) => env.suite.get(id));
  store.createRun({
    id: args.runId,
    kind: "run",
    seed: "s",
    config: {},
    codeVersion: "test",
    createdAtMs: 0,
  });
  for (const t of tasks) store.putTask(args.runId, t);
  const seq = createSequentialIds();
  const runtime = createRuntime({
    seed: args.runId,
    ids: { next: (prefix) => `${args.runId}_${seq.next(prefix)}` },
  });
  await runEpisodes(
    { env, policy: args.policy ?? createRandomPolicy(), runtime, store },
    { runId: args.runId, tasks, episodes: args.episodes, seed: "s", maxSteps: 12, temperature: 1 },
  );
}

export const DIRS: GridDirection[] = ["left", "down", "right", "up"];

/** The effect of an intended move, as `distribution` keys it. */
export const DELTA: Record<GridDirection, string> = {
  left: "agent.col-1",
  right: "agent.col+1",
  up: "agent.row-1",
  down: "agent.row+1",
};
/** Perpendicular left/right as seen facing each direction (Gymnasium's order: left, down, right, up). */
export const SIDES: Record<GridDirection, [GridDirection, GridDirection]> = {
  left: ["down", "up"],
  down: ["right", "left"],
  right: ["up", "down"],
  up: ["left", "right"],
};

/** The rule's outcome probabilities keyed by the (relative) effect: `agent.row+1` etc. */
export function distribution(rule: Rule): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of rule.outcomes) {
    const key = o.effects.map((e) => `${e.path}${e.op === "increment" ? "+" : "-"}${e.value}`).join(",");
    out[key] = o.probability;
  }
  return out;
}

/** A seeded uniform move: one draw from `random` per step, as the trace tests have always drawn. */
export function randomMove(random: Random): () => Action {
  return () => ({ type: "move", direction: DIRS[Math.floor(random.next() * 4)] as GridDirection });
}

/** A FrozenLake environment whose suite is the one custom map `rows` under `id`. */
function singleMapFrozenLake(
  config: FrozenLakeConfigInput,
  rows: string[],
  horizon: number,
  id = "m",
): Environment {
  return createFrozenLakeEnvironment({
    ...config,
    horizon,
    suite: { standard: [], randomMaps: { count: 0 }, maps: [{ id, rows }] },
  });
}

export interface TraceRecording {
  /** How an observation (of `task`) becomes a state. */
  viewer: Pick<StateViewer, "view">;
  taskIds: string[];
  episodes: number;
  /** The action for step `step` of an episode from `observation`. */
  choose: (observation: Observation, step: number) => Action;
  /** The reset seed of episode `episode` (default: the episode index). */
  seed?: (episode: number) => number;
  /** Passed to `reset` when given. */
  maxSteps?: number;
  episodeId: (taskId: string, episode: number) => string;
  /** The `source` label of every step, e.g. `run:test`. */
  source: string;
}

/** The episode number padded to four digits, as run ids number episodes. */
export function pad4(episode: number): string {
  return String(episode).padStart(4, "0");
}

/** Plays `env` on each task for `episodes` episodes and records every transition with its state view. */
export async function recordTraceSteps(env: Environment, rec: TraceRecording): Promise<TraceStep[]> {
  const steps: TraceStep[] = [];
  for (const taskId of rec.taskIds) {
    const task: Task = env.suite.get(taskId);
    for (let e = 0; e < rec.episodes; e++) {
      const seed = rec.seed ? rec.seed(e) : e;
      const episodeId = rec.episodeId(taskId, e);
      let observation = await env.reset(
        rec.maxSteps === undefined ? { taskId, seed } : { taskId, seed, maxSteps: rec.maxSteps },
      );
      for (let step = 0; ; step++) {
        const action = rec.choose(observation, step);
        const result = await env.step(action);
        steps.push({
          episodeId,
          taskId,
          family: env.family,
          seed,
          step,
          observation,
          action,
          nextObservation: result.observation,
          reward: result.reward,
          terminated: result.terminated,
          truncated: result.truncated,
          state: rec.viewer.view(observation, task),
          nextState: rec.viewer.view(result.observation, task),
          source: rec.source,
        });
        observation = result.observation;
        if (result.terminated || result.truncated) break;
      }
    }
  }
  return steps;
}

/** Traces of a seeded uniform random policy on one custom FrozenLake map `rows` (task `id`, default `m`). */
export function singleMapRandomTraces(args: {
  config: FrozenLakeConfigInput;
  rows: string[];
  episodes: number;
  horizon: number;
  id?: string;
  random: Random;
  viewer: Pick<StateViewer, "view">;
  episodeId: (taskId: string, episode: number) => string;
  source: string;
}): Promise<TraceStep[]> {
  const id = args.id ?? "m";
  return recordTraceSteps(singleMapFrozenLake(args.config, args.rows, args.horizon, id), {
    viewer: args.viewer,
    taskIds: [id],
    episodes: args.episodes,
    choose: randomMove(args.random),
    episodeId: args.episodeId,
    source: args.source,
  });
}
