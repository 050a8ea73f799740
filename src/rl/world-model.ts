import type { Action, Environment, Observation, Task } from "../core/index.ts";
import { UserError } from "../core/index.ts";

/** What a world model predicts for one action from the current committed state. */
export interface WmPrediction {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  /** The task verifier's verdict on the predicted state. */
  success: boolean;
}

/** Where the policy stands when it asks: the task and the current (committed) observation. */
export interface WmContext {
  task: Task;
  observation: Observation;
}

/**
 * A world model: the consequence of an action from the environment's current state, without side
 * effects — after `predict` the committed state is what it was before. The snapshot model reads the
 * state from the environment itself; a learnt one (`worldbookWorldModel`) from `context.observation`.
 */
export interface WorldModel {
  readonly name: string;
  predict(action: Action, context: WmContext): Promise<WmPrediction>;
}

/**
 * The "perfect" world model of an environment with `snapshot`/`restore`: it saves the state, steps the
 * real environment, asks the verifier, and restores the saved state (random state included), so the
 * committed episode goes on exactly as if nothing had been imagined. A comparison baseline: on a
 * stochastic environment it knows the very draw the committed step will get.
 */
export function snapshotWorldModel(env: Environment): WorldModel {
  const { snapshot, restore } = env;
  if (!env.capabilities.snapshot || !snapshot || !restore)
    throw new UserError(
      "rl.wm_no_snapshot",
      `the perfect world model needs an environment with snapshot/restore, and ${env.suite.name} has none; use an environment that can snapshot (frozenlake, chess)`,
    );
  return {
    name: "perfect",
    async predict(action) {
      const saved = await snapshot.call(env);
      try {
        const result = await env.step(action);
        const verdict = await env.evaluate();
        return {
          observation: result.observation,
          reward: result.reward,
          terminated: result.terminated,
          truncated: result.truncated,
          success: verdict.success,
        };
      } finally {
        await restore.call(env, saved);
      }
    },
  };
}
