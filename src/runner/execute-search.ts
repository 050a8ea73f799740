import { UserError } from "../core/index.ts";
import {
  runSearch,
  type SearchConfig,
  SearchConfigSchema,
  type SearchRunDeps,
  type TaskSearchResult,
} from "../search/index.ts";
import { formatZodIssues, type RunConfig, storedRunConfig } from "./config.ts";
import { allInfraFailedError, type InfraFailures, searchInfraFailures } from "./infra-failures.ts";
import { type RunnerDeps, withRunSession } from "./run-session.ts";
import { resumableRun } from "./run-status.ts";

export interface SearchSpec {
  /** A new search's config (search parameters under `search`); ignored with `resume`. */
  config?: RunConfig;
  /** Continue this interrupted search run from its stored nodes, with its stored config. */
  resume?: string;
  /** Store directory, for messages. */
  storeDir: string;
  onProgress?: SearchRunDeps["onProgress"];
}

export interface SearchOutcome {
  runId: string;
  /** Where the run is stored (for the resume hint). */
  storeDir: string;
  status: "complete" | "interrupted";
  config: RunConfig;
  search: SearchConfig;
  results: TaskSearchResult[];
  /** Nodes dropped as environment failures, by code (a search where they were all it did throws). */
  infraFailures: InfraFailures;
}

/** The validated ENVS parameters of a run config (`search:`). */
export function searchConfigOf(config: RunConfig): SearchConfig {
  const parsed = SearchConfigSchema.safeParse(config.search ?? {});
  if (!parsed.success)
    throw new UserError(
      "config.invalid",
      `invalid search config: ${formatZodIssues(parsed.error, "search")}`,
    );
  return parsed.data;
}

/**
 * `rehearsal search`: ENVS verified search over every selected task, one live environment per
 * `search.maxLiveEnvs`. The tree nodes are written at every round, so an interrupted run resumes to
 * the verified leaves of an uninterrupted one.
 */
export async function executeSearch(deps: RunnerDeps, spec: SearchSpec): Promise<SearchOutcome> {
  const stored = spec.resume ? resumableRun(deps.store, spec.resume, "search", spec.storeDir) : undefined;
  const config = stored ? storedRunConfig(stored) : (spec.config as RunConfig);
  const search = searchConfigOf(config);
  return withRunSession(deps, { config, envs: search.maxLiveEnvs }, async (session) => {
    // The policy first: one that cannot play these tasks fails before a run is recorded.
    const policy = await session.policy();
    const runId = stored?.id ?? session.createRun("search", { config: { ...config, search } });
    if (stored) session.resumeRun(runId);
    const result = await runSearch(
      {
        envs: session.envs,
        policy,
        runtime: session.runtime,
        store: deps.store,
        signal: session.signal,
        ...(spec.onProgress ? { onProgress: spec.onProgress } : {}),
      },
      { runId, seed: config.seed, tasks: session.tasks, config: search },
    );
    const perTask = result.tasks.map((t) => t.stats);
    const summary = {
      tasks: perTask.length,
      leaves: perTask.reduce((a, t) => a + t.leaves, 0),
      successes: perTask.reduce((a, t) => a + t.successes, 0),
      infraFailures: searchInfraFailures(result.tasks),
    };
    // No verified leaf and environment failures: the search measured nothing but a broken environment.
    if (!result.interrupted && summary.leaves === 0 && summary.infraFailures.count > 0)
      session.failRun(runId, summary, allInfraFailedError("search branches", runId, summary.infraFailures));
    const status = session.finishRun(runId, summary, result.interrupted);
    return {
      runId,
      storeDir: spec.storeDir,
      status,
      config,
      search,
      results: result.tasks,
      infraFailures: summary.infraFailures,
    };
  });
}
