import type { Task } from "../core/index.ts";
import { type EvalReport, evaluatePolicy, type RolloutSpec } from "../eval/index.ts";
import { SearchConfigSchema } from "../search/index.ts";
import type { RunConfig } from "./config.ts";
import { episodeDeps } from "./episode-deps.ts";
import { allInfraFailedError, episodeInfraFailures, type InfraFailures } from "./infra-failures.ts";
import { type RunnerDeps, withRunSession } from "./run-session.ts";

export interface EvalRunSpec {
  /** Rollouts per task are `config.episodes`, at `config.temperature`. */
  config: RunConfig;
  ks: ReadonlyArray<number>;
  /** Action entropy: states sampled (0 = off) and samples per state, at T = 1. */
  entropy: { states: number; samples: number };
  onEpisode?: (done: number, total: number) => void;
}

export interface EvalOutcome {
  runId: string;
  status: "complete" | "interrupted";
  policy: string;
  report: EvalReport;
  /** Rollouts that failed in the environment, by code (an eval where every one did throws). */
  infraFailures: InfraFailures;
}

/** What an evaluation of `config` plays: `episodes` rollouts per task at its temperature and horizon. */
export function rolloutSpecOf(
  config: RunConfig,
  tasks: ReadonlyArray<Task>,
  ks: ReadonlyArray<number>,
): RolloutSpec {
  const { episodes: rollouts, temperature, seed, maxSteps } = config;
  return { tasks, rollouts, temperature, seed, ks, ...(maxSteps ? { maxSteps } : {}) };
}

/** `rehearsal eval`: n rollouts per task, pass@k (unbiased), pass^k and action entropy, recorded. */
export async function executeEval(deps: RunnerDeps, spec: EvalRunSpec): Promise<EvalOutcome> {
  const { config } = spec;
  return withRunSession(deps, { config }, async (session) => {
    const policy = await session.policy();
    const runId = session.createRun("eval");
    const defaults = SearchConfigSchema.parse({});
    const report = await evaluatePolicy(episodeDeps(session, policy, spec.onEpisode), {
      ...rolloutSpecOf(config, session.tasks, spec.ks),
      runId,
      entropy: {
        ...spec.entropy,
        temperature: 1,
        gridPx: defaults.gridPx,
        typeTextChars: defaults.typeTextChars,
      },
    });
    const infraFailures = episodeInfraFailures([
      ...deps.store.iterateTrajectories(runId, { status: "infra_failed" }),
    ]);
    const summary = { pass: report.pass, entropyBits: report.entropy?.meanBits ?? null, infraFailures };
    const complete = report.perTask.reduce((a, t) => a + t.n, 0);
    if (!report.interrupted && complete === 0 && infraFailures.count > 0)
      session.failRun(runId, summary, allInfraFailedError("rollouts", runId, infraFailures));
    const status = session.finishRun(runId, summary, report.interrupted);
    return { runId, status, policy: policy.name, report, infraFailures };
  });
}
