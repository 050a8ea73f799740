import type { RolloutGroupOptions } from "../rl/index.ts";
import type { RunConfig } from "./config.ts";
import type { RunnerDeps } from "./run-session.ts";

/**
 * `rl rollouts --wm perfect|worldbook:DIR`: the base policy wrapped by `wm-lookahead`, asking the
 * environment's own snapshots (perfect) or the worldbook in `dir`.
 */
export interface WmSpec {
  model: "perfect" | "worldbook";
  dir?: string;
  candidates: number;
  cap: number;
}

/** The world model a spec names. */
async function worldModelOf(
  spec: WmSpec,
  env: Parameters<typeof import("../rl/index.ts").snapshotWorldModel>[0],
) {
  const { snapshotWorldModel, worldbookWorldModel } = await import("../rl/index.ts");
  if (spec.model === "perfect") return snapshotWorldModel(env);
  const { readWorldbook } = await import("../worldmodel/index.ts");
  return worldbookWorldModel(readWorldbook(spec.dir ?? ""));
}

/** Plays the groups as one run of kind "rl", scores them and stores the scores as the run summary's `rl`. */
export async function executeRlRollouts(
  deps: RunnerDeps,
  config: RunConfig,
  options: RolloutGroupOptions,
  wm: WmSpec | undefined,
) {
  const { withRunSession } = await import("./run-session.ts");
  const { episodeDeps } = await import("./episode-deps.ts");
  const { allInfraFailedError, episodeInfraFailures } = await import("./infra-failures.ts");
  const { summarizeEpisodes } = await import("../rollout/index.ts");
  const { playRolloutGroups, rolloutMetrics, scoreRolloutGroups, wmLookaheadPolicy } = await import(
    "../rl/index.ts"
  );
  return withRunSession(deps, { config }, async (session) => {
    const base = await session.policy();
    const policy = wm ? wmLookaheadPolicy(base, await worldModelOf(wm, session.env), wm) : base;
    const runId = session.createRun("rl");
    const results = await playRolloutGroups(episodeDeps(session, policy), {
      runId,
      tasks: session.tasks,
      seed: config.seed,
      temperature: config.temperature,
      options,
    });
    const report = scoreRolloutGroups(session.store.iterateTrajectories(runId), options);
    const infraFailures = episodeInfraFailures(results);
    const summary = {
      ...summarizeEpisodes(results),
      infraFailures,
      policy: policy.name,
      ...(wm ? { wm } : {}),
      rl: report,
      metrics: rolloutMetrics(report),
    };
    const interrupted = results.length < session.tasks.length * options.group;
    if (!interrupted && summary.complete === 0 && infraFailures.count > 0)
      session.failRun(runId, summary, allInfraFailedError("rollouts", runId, infraFailures));
    const status = session.finishRun(runId, summary, interrupted);
    return { runId, status, summary };
  });
}
