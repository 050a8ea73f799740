import { type EpisodeResult, type RunSummary, runEpisodes, summarizeEpisodes } from "../rollout/index.ts";
import { type RunConfig, storedRunConfig } from "./config.ts";
import { episodeDeps } from "./episode-deps.ts";
import { allInfraFailedError, episodeInfraFailures, type InfraFailures } from "./infra-failures.ts";
import { type RunnerDeps, withRunSession } from "./run-session.ts";
import { resumableRun } from "./run-status.ts";
import { storedEpisodeResults } from "./stored-episodes.ts";

export interface RunSpec {
  /** A new run's config; ignored with `resume`. */
  config?: RunConfig;
  /** Continue this interrupted run with its stored config: only the missing episodes are played. */
  resume?: string;
  /** Store directory, for messages. */
  storeDir: string;
  onEpisode?: (result: EpisodeResult, done: number, total: number) => void;
}

export interface RunOutcome {
  runId: string;
  /** Where the run is stored (for the resume hint). */
  storeDir: string;
  status: "complete" | "interrupted";
  config: RunConfig;
  /** With the environment failures by code (a run where every episode infra-failed throws instead). */
  summary: RunSummary & { infraFailures: InfraFailures };
}

/** `rehearsal run`: episodes of every selected task, each step recorded; resumable by episode. */
export async function executeRun(deps: RunnerDeps, spec: RunSpec): Promise<RunOutcome> {
  const stored = spec.resume ? resumableRun(deps.store, spec.resume, "run", spec.storeDir) : undefined;
  const config = stored ? storedRunConfig(stored) : (spec.config as RunConfig);
  return withRunSession(deps, { config }, async (session) => {
    const { tasks } = session;
    const previous = stored ? storedEpisodeResults(deps.store, stored.id) : [];
    const done = new Set(previous.map((r) => `${r.taskId}#${r.episodeIndex}`));
    // The policy first: one that cannot play these tasks fails before a run is recorded.
    const policy = await session.policy();
    const runId = stored?.id ?? session.createRun("run");
    if (stored) session.resumeRun(runId);
    const { results } = await runEpisodes(episodeDeps(session, policy, spec.onEpisode), {
      runId,
      tasks,
      episodes: config.episodes,
      seed: config.seed,
      temperature: config.temperature,
      ...(config.maxSteps ? { maxSteps: config.maxSteps } : {}),
      skip: (taskId, index) => done.has(`${taskId}#${index}`),
    });
    // Task-major order, as an uninterrupted run plays them: the summary is the same either way.
    const order = new Map(tasks.map((t, i) => [t.id, i] as const));
    const all = [...previous, ...results].sort(
      (a, b) => (order.get(a.taskId) ?? 0) - (order.get(b.taskId) ?? 0) || a.episodeIndex - b.episodeIndex,
    );
    const infraFailures = episodeInfraFailures(all);
    const summary = { ...summarizeEpisodes(all), infraFailures };
    const interrupted = all.length < tasks.length * config.episodes;
    if (!interrupted && summary.complete === 0 && infraFailures.count > 0)
      session.failRun(runId, summary, allInfraFailedError("episodes", runId, infraFailures));
    const status = session.finishRun(runId, { ...summary }, interrupted);
    return { runId, storeDir: spec.storeDir, status, config, summary };
  });
}
