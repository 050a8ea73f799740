import type { CurationManifest, JudgeSpec, RlNoiseSpec, RolloutGroupOptions } from "../rl/index.ts";
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

/** `rl rollouts --noise train` and `--curation FILE` (the manifest, read and validated, and its path). */
export interface RlRolloutExtras {
  noise?: RlNoiseSpec;
  curation?: { path: string; manifest: CurationManifest };
  /** `--success judge`: R_success from the LLM judge (src/rl/judge), the verifier's kept beside it. */
  judge?: JudgeSpec;
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
  extras: RlRolloutExtras = {},
) {
  const { withRunSession } = await import("./run-session.ts");
  const { episodeDeps } = await import("./episode-deps.ts");
  const { allInfraFailedError, episodeInfraFailures } = await import("./infra-failures.ts");
  const { summarizeEpisodes } = await import("../rollout/index.ts");
  const rl = await import("../rl/index.ts");
  const { playRolloutGroups, rolloutMetrics, scoreRolloutGroups, worldModelPolicy } = rl;
  const { curation, noise } = extras;
  const session$ = withRunSession(deps, { config }, async (session) => {
    const base = await session.policy();
    const noisy = noise
      ? (await import("./rl-noise-env.ts")).rlNoisyEnvironment(session.env, session.tasks, {
          seed: config.seed,
          tMax: options.tMax,
          noise,
          ...(curation ? { curation: curation.manifest } : {}),
        })
      : undefined;
    const env = noisy?.env ?? session.env;
    // The hard subset: each task's oracle length from the group's initial state, on the clean environment.
    const oracleSteps = await rl.measureOracleLengths(
      session.env,
      session.tasks,
      (taskId, attempt) =>
        rl.groupSeed(attempt === 0 ? config.seed : `${config.seed}#oracle${attempt}`, taskId),
      Math.max(options.tMax, 50),
    );
    // An llm policy calls the world model in its reasoning; any other is wrapped in wm-lookahead.
    const policy = wm ? worldModelPolicy(base, await worldModelOf(wm, env), wm) : base;
    const runId = session.createRun("rl");
    const results = await playRolloutGroups(
      { ...episodeDeps(session, policy), env },
      {
        runId,
        tasks: session.tasks,
        seed: config.seed,
        temperature: config.temperature,
        options,
      },
    );
    const judged = extras.judge
      ? await rl.judgeRolloutRun(session.store, runId, extras.judge, deps.runtime, session.signal)
      : undefined;
    const report = scoreRolloutGroups(session.store.iterateTrajectories(runId), options, judged?.success);
    const infraFailures = episodeInfraFailures(results);
    const summary = {
      ...summarizeEpisodes(results),
      infraFailures,
      policy: policy.name,
      ...(wm ? { wm } : {}),
      ...(noisy ? { noise: noisy.record } : {}),
      ...(curation ? { curation: { path: curation.path, ...curation.manifest } } : {}),
      oracleSteps,
      rl: report,
      metrics: rolloutMetrics(report, oracleSteps),
      ...(judged ? { judge: judged.summary } : {}),
    };
    const interrupted = results.length < session.tasks.length * options.group;
    if (!interrupted && summary.complete === 0 && infraFailures.count > 0)
      session.failRun(runId, summary, allInfraFailedError("rollouts", runId, infraFailures));
    if (!interrupted && judged?.error) session.failRun(runId, summary, judged.error);
    const status = session.finishRun(runId, summary, interrupted);
    return { runId, status, summary };
  });
  // A manifest task the suite does not have is the manifest's error, named as such.
  return curation ? session$.catch((e) => Promise.reject(rl.curationTaskError(e, curation.path))) : session$;
}
