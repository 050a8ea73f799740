import { z } from "zod";
import {
  type Action,
  createRuntime,
  createSequentialIds,
  type Environment,
  type EnvironmentFactory,
  type Policy,
  type Task,
  UserError,
} from "../../core/index.ts";
import { createScriptedPolicy } from "../../policies/scripted-policy.ts";
import { runEpisode } from "../../rollout/index.ts";
import type { Worldbook } from "../worldbook/schema.ts";

/** One world-to-real episode: the policy's run in the world model and the replay of its actions. */
export interface W2rEpisode {
  taskId: string;
  seed: number;
  /** The actions the policy took in the world model, replayed in that order in the real environment. */
  actions: Action[];
  /** Actions the real episode played before it ended (fewer when it ended earlier). */
  replayed: number;
  simulatedSuccess: boolean;
  realSuccess: boolean;
  simulatedReward: number;
  realReward: number;
  /** The final rewards agree (|simulated − real| < 1e-9). */
  rewardAgrees: boolean;
  /** Set when an episode could not be played (an environment failure); it counts as no success. */
  error?: string;
}

/** Per task: success rates in the world model and in the real environment, their ratio, agreement. */
export interface W2rTaskResult {
  taskId: string;
  episodes: number;
  simulatedSuccess: number;
  realSuccess: number;
  /** real / simulated success (how much of the simulated success transfers); null when simulated is 0. */
  ratio: number | null;
  /** Share of episodes whose final rewards agree. */
  rewardAgreement: number;
}

export interface W2rResult {
  tasks: W2rTaskResult[];
  /** Over all episodes. */
  overall: Omit<W2rTaskResult, "taskId">;
  episodes: W2rEpisode[];
}

export const W2rOptionsSchema = z
  .object({
    seeds: z.array(z.number().int().nonnegative()).min(1),
    maxSteps: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(5).default(1),
  })
  .strict();

export interface W2rInput {
  /** The world-model environment the policy acts in. */
  simulated: Environment;
  /** Builds the real environment (created once, closed at the end). */
  real: EnvironmentFactory;
  policy: Policy;
  tasks: ReadonlyArray<Task>;
  /** The episode seeds: the same for every task, or per task (e.g. the seeds of the worldbook's starts). */
  seeds: ReadonlyArray<number> | ((task: Task) => ReadonlyArray<number>);
  maxSteps?: number;
  temperature?: number;
}

/**
 * The seeds the worldbook's starts of `taskId` were recorded with, in order, at most `n`: W2R episodes
 * from these start the world model and the real environment in the same state.
 */
export function startSeeds(book: Pick<Worldbook, "starts">, taskId: string, n: number): number[] {
  const seeds = book.starts
    .filter((s) => s.taskId === taskId && s.seed !== undefined)
    .map((s) => s.seed as number);
  return [...new Set(seeds)].slice(0, n);
}

/** Keeps the actions a policy's first candidates gave (the ones `runEpisode` steps). */
function recordingPolicy(policy: Policy, actions: Action[]): Policy {
  return {
    name: policy.name,
    async propose(context, options) {
      const proposal = await policy.propose(context, options);
      const action = proposal.candidates[0]?.action;
      if (action) actions.push(action);
      return proposal;
    },
  };
}

function summarize(episodes: ReadonlyArray<W2rEpisode>): Omit<W2rTaskResult, "taskId"> {
  const n = episodes.length;
  const rate = (f: (e: W2rEpisode) => boolean) => (n === 0 ? 0 : episodes.filter(f).length / n);
  const simulatedSuccess = rate((e) => e.simulatedSuccess);
  const realSuccess = rate((e) => e.realSuccess);
  return {
    episodes: n,
    simulatedSuccess,
    realSuccess,
    ratio: simulatedSuccess === 0 ? null : realSuccess / simulatedSuccess,
    rewardAgreement: rate((e) => e.rewardAgrees),
  };
}

/**
 * World-to-real: for every task and seed, `policy` plays an episode in the world model; its actions are
 * replayed in the real environment reset with the same task and seed (stopping where the real episode
 * ends). Reports per task the simulated and real success rates, their ratio and how often the final
 * rewards agree. An environment failure in one episode is recorded on it (no success); a user or
 * internal error (an unknown task, a broken policy) is thrown.
 */
export async function worldToReal(input: W2rInput): Promise<W2rResult> {
  if (input.tasks.length === 0)
    throw new UserError("w2r.no_tasks", "world-to-real: no tasks given. Fix: pass the tasks to evaluate");
  const seedsOf =
    typeof input.seeds === "function" ? input.seeds : () => input.seeds as ReadonlyArray<number>;
  // Every task's seeds are checked before the first episode plays.
  const seeds = new Map(input.tasks.map((t) => [t.id, seedsOfTask(t, seedsOf, input)]));
  return playAll(input, (task) => seeds.get(task.id) as number[]);
}

/** A task's seeds, checked: at least one, each a non-negative integer. */
function seedsOfTask(task: Task, seedsOf: (task: Task) => ReadonlyArray<number>, input: W2rInput): number[] {
  const parsed = W2rOptionsSchema.safeParse({
    seeds: seedsOf(task),
    ...(input.maxSteps === undefined ? {} : { maxSteps: input.maxSteps }),
    ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
  });
  if (!parsed.success)
    throw new UserError(
      "w2r.bad_options",
      `world-to-real: invalid options for task ${task.id} (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}). Fix: give at least one non-negative integer seed per task and a positive maxSteps`,
      { details: { taskId: task.id } },
    );
  return parsed.data.seeds;
}

async function playAll(input: W2rInput, seedsOf: (task: Task) => number[]): Promise<W2rResult> {
  const maxSteps = input.maxSteps;
  const temperature = input.temperature ?? 1;
  const seq = createSequentialIds();
  const runtime = createRuntime({ seed: "w2r", ids: seq });
  const real = await input.real();
  const episodes: W2rEpisode[] = [];
  try {
    for (const task of input.tasks) {
      for (const [index, seed] of seedsOf(task).entries()) {
        const spec = {
          runId: "w2r",
          task,
          episodeIndex: index,
          seed,
          temperature,
          ...(maxSteps === undefined ? {} : { maxSteps }),
        };
        const actions: Action[] = [];
        const sim = await runEpisode(
          { env: input.simulated, policy: recordingPolicy(input.policy, actions), runtime },
          { ...spec, trajectoryId: runtime.ids.next("sim") },
        );
        const replay =
          actions.length === 0
            ? await real.reset({ taskId: task.id, seed }).then(async () => ({
                status: "complete" as const,
                steps: 0,
                outcome: await real.evaluate(),
                error: undefined,
              }))
            : await runEpisode(
                { env: real, policy: createScriptedPolicy(actions), runtime },
                { ...spec, maxSteps: actions.length, trajectoryId: runtime.ids.next("real") },
              );
        const error = sim.error?.message ?? replay.error?.message;
        const simulatedReward = sim.outcome?.reward ?? 0;
        const realReward = replay.outcome?.reward ?? 0;
        episodes.push({
          taskId: task.id,
          seed,
          actions,
          replayed: replay.steps,
          simulatedSuccess: sim.outcome?.success ?? false,
          realSuccess: replay.outcome?.success ?? false,
          simulatedReward,
          realReward,
          rewardAgrees: error === undefined && Math.abs(simulatedReward - realReward) < 1e-9,
          ...(error === undefined ? {} : { error }),
        });
      }
    }
  } finally {
    await real.close();
  }
  const taskIds = [...new Set(episodes.map((e) => e.taskId))];
  return {
    tasks: taskIds.map((taskId) => ({ taskId, ...summarize(episodes.filter((e) => e.taskId === taskId)) })),
    overall: summarize(episodes),
    episodes,
  };
}
