import type { Command } from "commander";
import type { RunConfig } from "../../runner/index.ts";
import { type CliContext, warnIfInterrupted, withResumable } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { createProgress } from "../progress.ts";
import {
  addConfigOptions,
  type ConfigFlags,
  configFromFlags,
  rejectResumeConflicts,
} from "../run-options.ts";
import { printSearchSummary } from "./search-summary.ts";

interface SearchFlags extends ConfigFlags {
  resume?: string;
  liveEnvs?: number;
  noiseFraction?: number;
}

/** The config of a new search: the shared flags, with the search flags under `search:`. */
async function searchRunConfig(flags: SearchFlags): Promise<RunConfig> {
  const config = await configFromFlags(flags, {}, { policyByEnv: true });
  const search: Record<string, unknown> = { ...(config.search ?? {}) };
  if (flags.liveEnvs !== undefined) search.maxLiveEnvs = flags.liveEnvs;
  if (flags.noiseFraction !== undefined) search.noiseFraction = flags.noiseFraction;
  return { ...config, search };
}

export function registerSearch(program: Command, ctx: CliContext): void {
  addConfigOptions(
    program
      .command("search")
      .description("ENVS verified search: branch over behaviourally distinct actions, verify leaves"),
  )
    .option("--live-envs <n>", "live environments at once (search.maxLiveEnvs)", positiveIntOption)
    .option(
      "--noise-fraction <f>",
      "share of branches with noise from the train generators (search.noiseFraction; web)",
      floatOption,
    )
    .option("--resume <run>", "continue an interrupted search run from the store")
    .action(async (flags: SearchFlags) => {
      const o = ctx.out();
      if (flags.resume) rejectResumeConflicts({ ...flags }, []);
      const config = flags.resume ? undefined : await searchRunConfig(flags);
      const { executeSearch } = await import("../../runner/execute-search.ts");
      let progress: ReturnType<typeof createProgress> | undefined;
      const run = await withResumable(ctx, config, flags, (deps, spec) =>
        executeSearch(deps, {
          ...spec,
          onProgress: (p) => {
            progress ??= createProgress(p.tasksTotal, {
              json: o.json,
              label: "search",
              format:
                "search [{bar}] {value}/{total} tasks | {task} alive {alive} queued {queued} leaves {leaves} successes {successes} busy envs {busy}",
            });
            progress.update(p.tasksDone, {
              task: p.taskId,
              alive: p.alive,
              queued: p.queued,
              leaves: p.leaves,
              successes: p.successes,
              busy: p.busyEnvs,
            });
          },
        }),
      ).finally(() => progress?.stop());
      printSearchSummary(o, {
        runId: run.runId,
        status: run.status,
        results: run.results,
        infraFailures: run.infraFailures,
      });
      warnIfInterrupted(o, { status: run.status, kind: "search", id: run.runId }, run.storeDir);
    });
}
