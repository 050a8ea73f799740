import {
  type Action,
  createRandom,
  type Environment,
  type GridDirection,
  type Observation,
  type Task,
} from "../../../src/core/index.ts";
import {
  createFrozenLakeEnvironment,
  type FrozenLakeConfigInput,
} from "../../../src/envs/frozenlake/index.ts";
import { stateViewerFor } from "../../../src/envs/state-viewers.ts";
import {
  buildWorldbook,
  type TraceStep,
  type Worldbook,
  type WorldbookOptionsInput,
} from "../../../src/worldmodel/index.ts";

const DIRS: GridDirection[] = ["left", "down", "right", "up"];

/** The FrozenLake family hint: the tile under the agent decides reward and termination. */
export const FROZENLAKE_LOOKUPS: WorldbookOptionsInput = {
  lookups: [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }],
};

export interface RecordOptions {
  taskIds: string[];
  episodes: number;
  maxSteps: number;
  /** The action for step `index` from `observation` (default: a seeded uniform move). */
  choose?: (observation: Observation, index: number, random: () => number) => Action;
}

/** Plays a real environment and records every transition with the family's state view (seeded). */
export async function recordTraces(env: Environment, options: RecordOptions): Promise<TraceStep[]> {
  const viewer = stateViewerFor(env.family);
  if (!viewer) throw new Error(`no state viewer for ${env.family}`);
  const random = createRandom("worldmodel-env-fixture", env.family, options.taskIds.join(","));
  const choose =
    options.choose ??
    ((_o: Observation, _i: number, next: () => number): Action => ({
      type: "move",
      direction: DIRS[Math.floor(next() * 4)] as GridDirection,
    }));
  const steps: TraceStep[] = [];
  for (const taskId of options.taskIds) {
    const task: Task = env.suite.get(taskId);
    for (let e = 0; e < options.episodes; e++) {
      const episodeId = `${taskId}-ep-${String(e).padStart(4, "0")}`;
      let observation = await env.reset({ taskId, seed: e, maxSteps: options.maxSteps });
      for (let step = 0; ; step++) {
        const action = choose(observation, step, () => random.next());
        const result = await env.step(action);
        steps.push({
          episodeId,
          taskId,
          family: env.family,
          seed: e,
          step,
          observation,
          action,
          nextObservation: result.observation,
          reward: result.reward,
          terminated: result.terminated,
          truncated: result.truncated,
          state: viewer.view(observation, task),
          nextState: viewer.view(result.observation, task),
          source: "run:fixture",
        });
        observation = result.observation;
        if (result.terminated || result.truncated) break;
      }
    }
  }
  return steps;
}

/** A worldbook built from real FrozenLake traces (slippery by default) of the given tasks. */
export async function frozenLakeWorldbook(
  config: FrozenLakeConfigInput = { slippery: true },
  record: Partial<RecordOptions> = {},
): Promise<{ book: Worldbook; steps: TraceStep[] }> {
  const env = createFrozenLakeEnvironment(config);
  const taskIds = record.taskIds ?? ["4x4", "8x8"];
  try {
    const steps = await recordTraces(env, { taskIds, episodes: 40, maxSteps: 30, ...record });
    const tasks = taskIds.map((id) => env.suite.get(id));
    return { book: buildWorldbook(steps, FROZENLAKE_LOOKUPS, { tasks }), steps };
  } finally {
    await env.close();
  }
}
