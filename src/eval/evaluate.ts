import type { Environment, Policy, Runtime, Task, Trajectory } from "../core/index.ts";
import { runEpisodes } from "../rollout/index.ts";
import type { RunStore } from "../store/contract.ts";
import { actionEntropy, type EntropyOptions, type EntropyReport } from "./entropy.ts";
import { type PassRow, passReport, type TaskRollouts } from "./pass-report.ts";

/** What every evaluation plays: n rollouts per task at a temperature, scored at each k. */
export interface RolloutSpec {
  tasks: ReadonlyArray<Task>;
  /** Rollouts per task. */
  rollouts: number;
  temperature: number;
  seed: string;
  ks: ReadonlyArray<number>;
  maxSteps?: number;
}

export interface EvalSpec extends RolloutSpec {
  runId: string;
  entropy?: Omit<EntropyOptions, "seed">;
}

export interface EvalReport {
  runId: string;
  perTask: TaskRollouts[];
  pass: PassRow[];
  entropy?: EntropyReport;
  interrupted: boolean;
}

/**
 * n rollouts per task at a temperature within the horizon, recorded in the store; per-task success
 * counts → pass@k (unbiased), pass^k for train / held-out / all; optionally per-state action entropy.
 */
export async function evaluatePolicy(
  deps: {
    env: Environment;
    policy: Policy;
    runtime: Runtime;
    store: RunStore;
    signal?: AbortSignal;
    onEpisode?: (done: number, total: number) => void;
  },
  spec: EvalSpec,
): Promise<EvalReport> {
  const { results } = await runEpisodes(
    {
      env: deps.env,
      policy: deps.policy,
      runtime: deps.runtime,
      store: deps.store,
      ...(deps.signal ? { signal: deps.signal } : {}),
      onEpisode: (_r, done, total) => deps.onEpisode?.(done, total),
    },
    {
      runId: spec.runId,
      tasks: spec.tasks,
      episodes: spec.rollouts,
      seed: spec.seed,
      temperature: spec.temperature,
      ...(spec.maxSteps ? { maxSteps: spec.maxSteps } : {}),
    },
  );
  const perTask: TaskRollouts[] = spec.tasks.map((task) => {
    const mine = results.filter((r) => r.taskId === task.id);
    const complete = mine.filter((r) => r.status === "complete");
    return {
      taskId: task.id,
      split: task.split,
      tier: task.tier ?? "-",
      n: complete.length,
      c: complete.filter((r) => r.outcome?.success).length,
      infraFailed: mine.length - complete.length,
      meanSteps: complete.length === 0 ? 0 : complete.reduce((a, r) => a + r.steps, 0) / complete.length,
    };
  });
  const report: EvalReport = {
    runId: spec.runId,
    perTask,
    pass: passReport(perTask, spec.ks),
    interrupted: Boolean(deps.signal?.aborted),
  };
  if (spec.entropy && spec.entropy.states > 0) {
    const trajectories: Trajectory[] = [
      ...deps.store.iterateTrajectories(spec.runId, { status: "complete" }),
    ];
    report.entropy = await actionEntropy(
      deps.policy,
      deps.env,
      trajectories,
      new Map(spec.tasks.map((t) => [t.id, t] as const)),
      { ...spec.entropy, seed: spec.seed },
    );
  }
  return report;
}
