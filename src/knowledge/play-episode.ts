import type { Environment } from "../core/environment.ts";
import type { HistoryEntry, Policy } from "../core/policy.ts";
import type { Random } from "../core/random.ts";
import type { Task } from "../core/task.ts";
import type { Cell } from "../envs/frozenlake/map.ts";
import { actionLabel } from "./action-label.ts";
import { KnowledgeEpisodeError } from "./errors.ts";
import type { TransitionInput } from "./experience-buffer.ts";
import { cellOf } from "./frozenlake-keys.ts";

export interface PlayedStep extends TransitionInput {
  cell: Cell | undefined;
  nextCell: Cell | undefined;
}

export interface PlayedEpisode {
  id: string;
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
  maxSteps: number;
  temperature: number;
  /** Per-step policy randomness. */
  random: (step: number) => Random;
}

/**
 * Plays one episode and records its transitions with their structural state keys (the rollout layer's
 * `runEpisode` stores steps instead of returning them; the loops need them in memory). A candidate that
 * is not a valid action ends nothing: the step is skipped and counted against `maxSteps`.
 */
export async function playEpisode(options: PlayEpisodeOptions): Promise<PlayedEpisode> {
  const { env, policy, task } = options;
  let observation = await env.reset({ taskId: task.id, seed: options.seed });
  const history: HistoryEntry[] = [];
  const steps: PlayedStep[] = [];
  let total = 0;
  for (let i = 0; i < options.maxSteps; i++) {
    const state = observation.stateKey;
    if (state === undefined)
      throw new KnowledgeEpisodeError(options.id, `task "${task.id}" gives observations without stateKey`);
    const proposal = await policy.propose(
      { task, observation, history, stepIndex: i },
      { n: 1, temperature: options.temperature, random: options.random(i) },
    );
    const action = proposal.candidates[0]?.action;
    if (!action) continue;
    const result = await env.step(action);
    const next = result.observation.stateKey ?? state;
    const info = result.info;
    steps.push({
      state,
      action,
      actionLabel: actionLabel(action),
      reward: result.reward,
      terminal: result.terminated,
      truncated: result.truncated,
      nextState: next,
      ...(typeof info.slipped === "boolean" ? { slipped: info.slipped } : {}),
      ...(typeof info.goodMove === "boolean" ? { goodMove: info.goodMove } : {}),
      cell: cellOf(observation.data),
      nextCell: cellOf(result.observation.data),
    });
    total += result.reward;
    history.push({ observation, action, raw: proposal.candidates[0]?.raw ?? "" });
    observation = result.observation;
    if (result.terminated || result.truncated) break;
  }
  const outcome = await env.evaluate();
  return {
    id: options.id,
    taskId: task.id,
    seed: options.seed,
    steps,
    success: outcome.success,
    return: total,
  };
}
