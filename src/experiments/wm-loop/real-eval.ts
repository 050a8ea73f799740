import type { Environment, Runtime, Task } from "../../core/index.ts";
import { createTrainablePolicy, Parameters } from "../../policies/trainable/index.ts";
import { countWmCalls } from "../../rl/wm-transcript.ts";
import { runEpisodes } from "../../rollout/index.ts";
import { createMemoryStore } from "../../store/index.ts";

/** What a policy scored in the real environment: pass@1 over seeded episodes per task. */
export interface RealEvaluation {
  /** Successful episodes / episodes (all tasks). */
  pass1: number;
  episodes: number;
  successes: number;
  perTask: Record<string, { episodes: number; successes: number; pass1: number }>;
  meanSteps: number;
  /** `<call_wm>` blocks per trajectory in the policy's raw outputs (trainable policies write none). */
  wmCallsPerTrajectory: number;
}

export interface RealEvalDeps {
  env: Environment;
  tasks: ReadonlyArray<Task>;
  runtime: Runtime;
}

/**
 * Plays `episodes` seeded episodes per task with the trainable policy of `weights` (sampling at
 * temperature 1, as it was trained) in the real environment and counts successes from the verifier's
 * outcomes. The seeds depend only on `seed`, so every checkpoint is scored on the same episodes.
 */
export async function evaluateInReal(
  deps: RealEvalDeps,
  kind: "tabular" | "linear",
  weights: Record<string, number>,
  options: { episodes: number; seed: string; maxSteps: number },
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
    const policy = createTrainablePolicy(kind, Parameters.from(weights));
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
      for (const s of t.steps) calls += countWmCalls(s.raw ?? "");
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
