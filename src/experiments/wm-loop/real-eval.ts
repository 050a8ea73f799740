import { type Environment, InternalError, type Runtime, type Task } from "../../core/index.ts";
import { createTrainablePolicy, Parameters } from "../../policies/trainable/index.ts";
import type { WmGateOptions } from "../../policies/trainable/wm-gate.ts";
import { trajectoryWmCalls } from "../../rl/rollout-groups.ts";
import type { WorldModel } from "../../rl/world-model.ts";
import { runEpisodes } from "../../rollout/index.ts";
import { createMemoryStore } from "../../store/index.ts";
import { createWmGatedPolicy } from "../../train/wm-gated-policy.ts";

/** What a policy scored in the real environment: pass@1 over seeded episodes per task. */
export interface RealEvaluation {
  /** Successful episodes / episodes (all tasks). */
  pass1: number;
  episodes: number;
  successes: number;
  perTask: Record<string, { episodes: number; successes: number; pass1: number }>;
  meanSteps: number;
  /** `<call_wm>` blocks per trajectory in the policy's raw outputs (the plain trainable policies write none). */
  wmCallsPerTrajectory: number;
}

export interface RealEvalDeps {
  env: Environment;
  tasks: ReadonlyArray<Task>;
  runtime: Runtime;
  /** With `options.wm`: the world model the WM-consulting policy asks. */
  worldModel?: WorldModel;
}

/**
 * Plays `episodes` seeded episodes per task with the trainable policy of `weights` (sampling at
 * temperature 1, as it was trained) in the real environment and counts successes from the verifier's
 * outcomes and WM calls from the stored steps (as the rollout groups count them). With `options.wm`
 * the policy is the WM-consulting one, asking `deps.worldModel`. The seeds depend only on `seed`, so
 * every checkpoint is scored on the same episodes.
 */
export async function evaluateInReal(
  deps: RealEvalDeps,
  kind: "tabular" | "linear",
  weights: Record<string, number>,
  options: { episodes: number; seed: string; maxSteps: number; wm?: WmGateOptions },
): Promise<RealEvaluation> {
  const store = createMemoryStore();
  const runId = "wm-loop-eval";
  store.createRun({
    id: runId,
    kind: "eval",
    seed: options.seed,
    config: {},
    codeVersion: "experiment",
    createdAtMs: 0,
  });
  try {
    const params = Parameters.from(weights);
    if (options.wm && !deps.worldModel)
      throw new InternalError(
        "experiment.wm_missing",
        "wm-loop evaluation: the WM-consulting policy needs a world model",
      );
    const policy =
      options.wm && deps.worldModel
        ? createWmGatedPolicy(kind, params, deps.worldModel, options.wm)
        : createTrainablePolicy(kind, params);
    const { results } = await runEpisodes(
      { env: deps.env, policy, runtime: deps.runtime, store },
      {
        runId,
        tasks: deps.tasks,
        episodes: options.episodes,
        seed: options.seed,
        maxSteps: options.maxSteps,
        temperature: 1,
      },
    );
    const perTask: RealEvaluation["perTask"] = {};
    let successes = 0;
    let steps = 0;
    for (const r of results) {
      const row = perTask[r.taskId] ?? { episodes: 0, successes: 0, pass1: 0 };
      row.episodes++;
      if (r.outcome?.success === true) {
        row.successes++;
        successes++;
      }
      row.pass1 = row.successes / row.episodes;
      perTask[r.taskId] = row;
      steps += r.steps;
    }
    let calls = 0;
    let trajectories = 0;
    for (const t of store.iterateTrajectories(runId)) {
      trajectories++;
      calls += trajectoryWmCalls(t);
    }
    const n = Math.max(1, results.length);
    return {
      pass1: successes / n,
      episodes: results.length,
      successes,
      perTask,
      meanSteps: steps / n,
      wmCallsPerTrajectory: calls / Math.max(1, trajectories),
    };
  } finally {
    store.close();
  }
}
