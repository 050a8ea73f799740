import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Task, UserError } from "../../core/index.ts";
import {
  createEnvironmentFromConfig,
  RunConfigSchema,
  type RunnerDeps,
  selectTasks,
} from "../../runner/index.ts";
import { stopRequested } from "../interrupt.ts";
import { type EnvsLoopOptions, type EnvsLoopPlan, planOf } from "./options.ts";
import type { EnvsLoopResults, PolicyResult } from "./results.ts";
import { evaluateOn, exportRound, type SearchRoundTask, searchRound, trainOn } from "./steps.ts";

/** The tasks a plan names, read from the environment's suite (split and tier included). */
async function tasksOf(deps: RunnerDeps, plan: EnvsLoopPlan): Promise<Task[]> {
  const config = RunConfigSchema.parse({ env: plan.env });
  const env = await createEnvironmentFromConfig(config, deps.runtime);
  try {
    return selectTasks(env.suite, plan.tasks);
  } finally {
    await env.close();
  }
}

function trainPass1(p: PolicyResult): number {
  return p.eval.find((g) => g.split === "train" && g.tier === "all")?.passAt["1"] ?? 0;
}

/**
 * ENVS closed on a CPU: verified search with the base policy on the train tasks → the balanced export
 * (nested fractions) → SFT of a linear policy (balanced and uniform weights) → pass@k of base and
 * every trained policy on train and held-out tasks per tier → a second search round with the best
 * trained policy (by train pass@1; held-out tasks never choose), compared with round 1 on long tasks.
 */
export async function runEnvsLoop(
  deps: RunnerDeps,
  options: EnvsLoopOptions,
  onProgress: (message: string) => void = () => {},
): Promise<EnvsLoopResults> {
  const plan = planOf(options);
  const out = resolve(options.out);
  mkdirSync(join(out, "checkpoints"), { recursive: true });
  const started = deps.runtime.clock.nowMs();
  const seconds: Record<string, number> = {};
  const timed = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = deps.runtime.clock.nowMs();
    onProgress(`envs-loop: ${name}…`);
    const r = await fn();
    seconds[name] = (seconds[name] ?? 0) + (deps.runtime.clock.nowMs() - t0) / 1000;
    return r;
  };
  const tasks = await tasksOf(deps, plan);
  const train = tasks.filter((t) => t.split === "train");
  const evalSeed = `${options.seed}:eval`;
  const searchSeed = `${options.seed}:search`;
  const policies: PolicyResult[] = [];
  const data: EnvsLoopResults["data"] = [];
  // A stop request (SIGINT/SIGTERM) ends the step in flight (searches and evaluations take the signal);
  // what completed before it is returned with `status: "interrupted"`.
  const stopped = () => stopRequested(deps.signals?.signal);
  /** The results with what completed: `rounds` so far; round 2 and `best` only when complete. */
  const assemble = (rounds: EnvsLoopResults["rounds"], best?: string): EnvsLoopResults => ({
    format: "rehearsal-experiment-envs-loop",
    version: 1,
    status: best === undefined ? "interrupted" : "complete",
    options,
    plan: { ...plan },
    tasks: tasks.map((t) => ({ id: t.id, split: t.split, tier: t.tier ?? "-" })),
    rounds,
    data,
    policies,
    best: best ?? "none (interrupted)",
    expertIteration: expertIteration(rounds[0]?.tasks ?? [], rounds[1]?.tasks ?? []),
    seconds: { ...seconds, total: (deps.runtime.clock.nowMs() - started) / 1000 },
  });
  const round1 = await timed("search round 1", () =>
    searchRound(deps, plan, plan.basePolicy, train, searchSeed),
  );
  if (stopped()) return assemble([]);
  const rounds1 = [{ round: 1, policy: "base", runId: round1.runId, tasks: round1.tasks }];
  const base = await timed("evaluation", () => evaluateOn(deps, plan, plan.basePolicy, tasks, evalSeed));
  if (stopped()) return assemble(rounds1);
  policies.push({ name: "base", policy: plan.basePolicy, eval: base.groups, perTask: base.perTask });
  for (const fraction of plan.fractions) {
    const exported = await timed("export", () =>
      exportRound(deps, plan, round1.runId, fraction, out, options.seed),
    );
    if (exported.records === 0)
      throw new UserError(
        "experiment.no_data",
        `experiment envs-loop: the round-1 search with ${plan.basePolicy} found no verified success on the train tasks of ${plan.env}, so there is nothing to train on. Fix: use the default --scale, another --seed, or --env terminal`,
      );
    data.push({ fraction, ...exported });
    for (const weights of ["balanced", "uniform"] as const) {
      const name = `${weights}@${Math.round(fraction * 100)}%`;
      const ckpt = join(out, "checkpoints", `${weights}-${Math.round(fraction * 100)}pct.json`);
      const trained = await timed("sft", () => trainOn(plan, exported.file, weights, ckpt, options.seed));
      const ev = await timed("evaluation", () => evaluateOn(deps, plan, trained.policy, tasks, evalSeed));
      if (stopped()) return assemble(rounds1);
      policies.push({
        name,
        policy: trained.policy,
        weights,
        fraction,
        examples: trained.examples,
        finalLoss: trained.finalLoss,
        targetsOutsideCandidates: trained.targetsOutsideCandidates,
        eval: ev.groups,
        perTask: ev.perTask,
      });
    }
  }
  const trainedOnes = policies.filter((p) => p.weights !== undefined);
  const best = trainedOnes.reduce(
    (a, p) => (trainPass1(p) > trainPass1(a) ? p : a),
    trainedOnes[0] as PolicyResult,
  );
  const round2 = await timed("search round 2", () => searchRound(deps, plan, best.policy, train, searchSeed));
  if (stopped()) return assemble(rounds1);
  return assemble(
    [...rounds1, { round: 2, policy: best.name, runId: round2.runId, tasks: round2.tasks }],
    best.name,
  );
}

/** Long-task successes of round 2 against round 1: tasks solved only by round 2, and leaf counts. */
export function expertIteration(r1: ReadonlyArray<SearchRoundTask>, r2: ReadonlyArray<SearchRoundTask>) {
  const long = (list: ReadonlyArray<SearchRoundTask>) => list.filter((t) => t.tier === "long");
  const first = new Map(long(r1).map((t) => [t.taskId, t] as const));
  const newlySolved = long(r2)
    .filter((t) => t.successes > 0 && (first.get(t.taskId)?.successes ?? 0) === 0)
    .map((t) => t.taskId);
  const sum = (list: ReadonlyArray<SearchRoundTask>) => list.reduce((a, t) => a + t.successes, 0);
  return {
    longTasks: first.size,
    round1LongSolved: long(r1).filter((t) => t.successes > 0).length,
    round2LongSolved: long(r2).filter((t) => t.successes > 0).length,
    round1LongSuccesses: sum(long(r1)),
    round2LongSuccesses: sum(long(r2)),
    newlySolved,
  };
}
