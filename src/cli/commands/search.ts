import type { Command } from "commander";
import { type Environment, UserError } from "../../core/index.ts";
import { runSearch, SearchConfigSchema } from "../../search/index.ts";
import { codeVersion } from "../code-version.ts";
import {
  defaultPolicyFor,
  formatZodIssues,
  type RunConfig,
  RunConfigSchema,
  readConfigFile,
  resolveRunConfig,
} from "../config.ts";
import { createCliRuntime, openCliStore } from "../context.ts";
import { createEnvironmentFromConfig, selectTasks } from "../environments.ts";
import { floatOption, intOption, listOption } from "../options.ts";
import type { Output } from "../output.ts";
import { createPolicyFromConfig } from "../policies.ts";
import { createProgress } from "../progress.ts";
import { markRunFailed } from "../run-status.ts";
import { printSearchSummary } from "./search-summary.ts";

interface SearchFlags {
  config?: string;
  env?: string;
  suite?: string;
  tasksDir?: string;
  tasks?: string[] | "all";
  policy?: string;
  seed?: string;
  store?: string;
  resume?: string;
  liveEnvs?: number;
  noiseFraction?: number;
}

export function registerSearch(program: Command, out: () => Output): void {
  program
    .command("search")
    .description("ENVS verified search: branch over behaviourally distinct actions, verify leaves")
    .option("-c, --config <file>", "YAML or JSON config file; search parameters under `search:`")
    .option("--env <name>", "environment: web | frozenlake")
    .option("--suite <name>", "task suite (web: builtin)")
    .option("--tasks-dir <dir>", "a directory of MiniWoB++-protocol pages as the suite (web)")
    .option("--tasks <ids>", "comma-separated task ids, or all", listOption)
    .option("--policy <name>", "the frozen policy: heuristic | random | llm | oracle")
    .option("--seed <seed>", "root seed")
    .option("--live-envs <n>", "live environments at once (search.maxLiveEnvs)", intOption)
    .option(
      "--noise-fraction <f>",
      "share of branches with noise from the train generators (search.noiseFraction; web)",
      floatOption,
    )
    .option("--store <dir>", "run store directory")
    .option("--resume <run>", "continue an interrupted search run from the store")
    .action(async (flags: SearchFlags) => {
      const o = out();
      const storeDir = flags.store ?? ".rehearsal";
      const store = openCliStore(storeDir);
      let config: RunConfig;
      let runId: string;
      try {
        if (flags.resume) {
          const run = store.getRun(flags.resume);
          if (!run)
            throw new UserError(
              "run.not_found",
              `no run ${flags.resume} in ${storeDir}; list runs with 'rehearsal runs list --kind search'`,
            );
          if (run.kind !== "search")
            throw new UserError(
              "search.not_search_run",
              `run ${run.id} is a ${run.kind} run; --resume takes a search run`,
            );
          if (run.status === "complete")
            throw new UserError(
              "search.already_complete",
              `search run ${run.id} is already complete; nothing to resume`,
            );
          const parsed = RunConfigSchema.safeParse(run.config);
          if (!parsed.success)
            throw new UserError(
              "search.bad_stored_config",
              `stored config of ${run.id} no longer validates: ${formatZodIssues(parsed.error, "config")}`,
            );
          config = parsed.data;
          runId = run.id;
        } else {
          const fileOptions = flags.config ? readConfigFile(flags.config) : {};
          const envName = flags.env ?? fileOptions.env;
          config = resolveRunConfig(
            fileOptions,
            {
              env: flags.env,
              suite: flags.suite,
              tasksDir: flags.tasksDir,
              tasks: flags.tasks,
              policy:
                flags.policy ?? (fileOptions.policy === undefined ? defaultPolicyFor(envName) : undefined),
              seed: flags.seed,
              store: storeDir,
            },
            flags.config ?? "options",
          );
          if (flags.liveEnvs !== undefined)
            config = { ...config, search: { ...(config.search ?? {}), maxLiveEnvs: flags.liveEnvs } };
          if (flags.noiseFraction !== undefined)
            config = { ...config, search: { ...(config.search ?? {}), noiseFraction: flags.noiseFraction } };
          runId = "";
        }
      } catch (e) {
        store.close();
        throw e;
      }
      const parsedSearch = SearchConfigSchema.safeParse(config.search ?? {});
      if (!parsedSearch.success) {
        store.close();
        throw new UserError(
          "config.invalid",
          `invalid search config: ${formatZodIssues(parsedSearch.error, "search")}`,
        );
      }
      const searchConfig = parsedSearch.data;
      const runtime = createCliRuntime(config.seed);
      const envs: Environment[] = [];
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once("SIGINT", onSigint);
      try {
        for (let i = 0; i < searchConfig.maxLiveEnvs; i++)
          envs.push(await createEnvironmentFromConfig(config, runtime));
        const tasks = selectTasks((envs[0] as Environment).suite, config.tasks);
        const policy = await createPolicyFromConfig(config, runtime);
        if (!runId) {
          runId = runtime.ids.next("search");
          store.createRun({
            id: runId,
            kind: "search",
            seed: config.seed,
            config: { ...config, search: searchConfig },
            codeVersion: codeVersion(),
            createdAtMs: runtime.clock.nowMs(),
          });
          for (const t of tasks) store.putTask(runId, t);
        } else {
          store.updateRun(runId, { status: "running", updatedAtMs: runtime.clock.nowMs() });
        }
        const progress = createProgress(tasks.length, {
          json: o.json,
          label: "search",
          format:
            "search [{bar}] {value}/{total} tasks | {task} alive {alive} queued {queued} leaves {leaves} successes {successes} busy envs {busy}",
        });
        const result = await runSearch(
          {
            envs,
            policy,
            runtime,
            store,
            signal: controller.signal,
            onProgress: (p) =>
              progress.update(p.tasksDone, {
                task: p.taskId,
                alive: p.alive,
                queued: p.queued,
                leaves: p.leaves,
                successes: p.successes,
                busy: p.busyEnvs,
              }),
          },
          { runId, seed: config.seed, tasks, config: searchConfig },
        );
        progress.stop();
        const status = result.interrupted ? "interrupted" : "complete";
        const perTask = result.tasks.map((t) => t.stats);
        store.updateRun(runId, {
          status,
          summary: {
            tasks: perTask.length,
            leaves: perTask.reduce((a, t) => a + t.leaves, 0),
            successes: perTask.reduce((a, t) => a + t.successes, 0),
          },
          updatedAtMs: runtime.clock.nowMs(),
        });
        await policy.close?.();
        printSearchSummary(o, { runId, status, results: result.tasks });
      } catch (e) {
        if (runId) markRunFailed(store, runId, runtime, e);
        throw e;
      } finally {
        process.off("SIGINT", onSigint);
        for (const e of envs) await e.close();
        store.close();
      }
    });
}
