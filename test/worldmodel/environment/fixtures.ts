import { type Action, createRandom, type Environment, type Observation } from "../../../src/core/index.ts";
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
import { pad4, randomMove, recordTraceSteps } from "../traces-helpers.ts";

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
  const next = () => random.next();
  const move = randomMove(random);
  const choose = options.choose;
  return recordTraceSteps(env, {
    viewer,
    taskIds: options.taskIds,
    episodes: options.episodes,
    maxSteps: options.maxSteps,
    choose: choose ? (observation, step) => choose(observation, step, next) : move,
    episodeId: (taskId, e) => `${taskId}-ep-${pad4(e)}`,
    source: "run:fixture",
  });
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
