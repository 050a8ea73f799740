import { join } from "node:path";
import type { Task } from "../../core/index.ts";
import { meanOverTasks, passAtK, type TaskRollouts } from "../../eval/index.ts";
import { exportSft } from "../../export/index.ts";
import { writeCheckpoint } from "../../policies/trainable/index.ts";
import {
  executeEval,
  executeSearch,
  type RunConfig,
  RunConfigSchema,
  type RunnerDeps,
} from "../../runner/index.ts";
import { readSftData, trainSft } from "../../train/index.ts";
import type { EnvsLoopPlan } from "./options.ts";

/** One search round's per-task figures. */
export interface SearchRoundTask {
  taskId: string;
  split: string;
  tier: string;
  leaves: number;
  successes: number;
  uniqueSteps: number;
  envSteps: number;
}

/** pass@k of one group of tasks (split × tier), from real evaluation episodes. */
export interface PassGroup {
  split: string;
  tier: string;
  tasks: number;
  episodes: number;
  successes: number;
  passAt: Record<string, number>;
}

function configOf(plan: EnvsLoopPlan, policy: string, tasks: ReadonlyArray<Task>, seed: string): RunConfig {
  return RunConfigSchema.parse({
    env: plan.env,
    policy,
    tasks: tasks.map((t) => t.id),
    seed,
    episodes: plan.rollouts,
    temperature: 1,
    search: plan.search,
  });
}

/** An ENVS search of `tasks` with `policy`; returns the run id and each task's tree figures. */
export async function searchRound(
  deps: RunnerDeps,
  plan: EnvsLoopPlan,
  policy: string,
  tasks: ReadonlyArray<Task>,
  seed: string,
): Promise<{ runId: string; tasks: SearchRoundTask[] }> {
  const outcome = await executeSearch(deps, {
    config: configOf(plan, policy, tasks, seed),
    storeDir: "memory",
  });
  return {
    runId: outcome.runId,
    tasks: outcome.results.map(({ stats: s }) => ({
      taskId: s.taskId,
      split: s.split,
      tier: s.tier,
      leaves: s.leaves,
      successes: s.successes,
      uniqueSteps: s.uniqueSteps,
      envSteps: s.envSteps,
    })),
  };
}

/** The balanced SFT export of a search run (the `export sft` weights) at one nested data fraction. */
export function exportRound(
  deps: RunnerDeps,
  plan: EnvsLoopPlan,
  runId: string,
  fraction: number,
  out: string,
  seed: string,
) {
  const file = join(out, "data", `round1-${Math.round(fraction * 100)}pct.trl.jsonl`);
  const report = exportSft(deps.store, {
    runId,
    out: file,
    format: "trl",
    observation: "axtree",
    window: 1,
    historyLength: 5,
    beta: plan.balance.beta,
    wMax: plan.balance.wMax,
    ...(fraction < 1 ? { fraction } : {}),
    materializeWeights: false,
    seed,
  });
  return { file, records: report.records, keptLeaves: report.perTask.reduce((a, t) => a + t.keptLeaves, 0) };
}

/**
 * SFT of a linear policy on an exported file, with its balancing weights or every weight 1
 * (`uniform`); the checkpoint goes to `checkpoint` and its policy spec is returned.
 */
export function trainOn(
  plan: EnvsLoopPlan,
  file: string,
  weights: "balanced" | "uniform",
  checkpoint: string,
  seed: string,
): { policy: string; examples: number; finalLoss: number; targetsOutsideCandidates: number } {
  const data = readSftData(file, plan.env);
  const examples = weights === "balanced" ? data.examples : data.examples.map((e) => ({ ...e, weight: 1 }));
  const result = trainSft(examples, plan.sft, { family: plan.env, seed });
  writeCheckpoint(checkpoint, result.checkpoint);
  return {
    policy: `linear:${checkpoint}`,
    examples: result.examples,
    finalLoss: result.curve.at(-1)?.loss ?? Number.NaN,
    targetsOutsideCandidates: result.targetsOutsideCandidates,
  };
}

/** Evaluates `policy` on every task (`plan.rollouts` episodes each at T = 1); pass@k per split × tier. */
export async function evaluateOn(
  deps: RunnerDeps,
  plan: EnvsLoopPlan,
  policy: string,
  tasks: ReadonlyArray<Task>,
  seed: string,
): Promise<{ runId: string; groups: PassGroup[]; perTask: TaskRollouts[] }> {
  const outcome = await executeEval(deps, {
    config: configOf(plan, policy, tasks, seed),
    ks: plan.ks,
    entropy: { states: 0, samples: 0 },
  });
  return {
    runId: outcome.runId,
    groups: passGroups(outcome.report.perTask, plan.ks),
    perTask: outcome.report.perTask,
  };
}

/** pass@k (unbiased, mean over tasks) per split × tier and per split, from per-task rollout counts. */
export function passGroups(rows: ReadonlyArray<TaskRollouts>, ks: ReadonlyArray<number>): PassGroup[] {
  const keys: Array<[string, string]> = [];
  for (const split of ["train", "heldout"])
    for (const tier of [...new Set(rows.map((r) => r.tier))].sort().concat("all")) keys.push([split, tier]);
  return keys.flatMap(([split, tier]) => {
    const list = rows.filter((r) => r.split === split && (tier === "all" || r.tier === tier) && r.n > 0);
    if (list.length === 0) return [];
    const passAt: Record<string, number> = {};
    for (const k of ks) passAt[k] = meanOverTasks(list.map((r) => passAtK(r.n, r.c, k)));
    return [
      {
        split,
        tier,
        tasks: list.length,
        episodes: list.reduce((a, r) => a + r.n, 0),
        successes: list.reduce((a, r) => a + r.c, 0),
        passAt,
      },
    ];
  });
}
