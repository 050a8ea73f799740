import type { Command } from "commander";
import { runEpisodes } from "../../rollout/index.ts";
import { codeVersion } from "../code-version.ts";
import { readConfigFile, resolveRunConfig } from "../config.ts";
import { createCliRuntime, openCliStore } from "../context.ts";
import { createEnvironmentFromConfig, selectTasks } from "../environments.ts";
import { floatOption, intOption, listOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";
import { createPolicyFromConfig } from "../policies.ts";
import { createProgress } from "../progress.ts";
import { markRunFailed } from "../run-status.ts";
import { printRunSummary } from "./run-summary.ts";

interface RunFlags {
  config?: string;
  env?: string;
  suite?: string;
  tasksDir?: string;
  tasks?: string[] | "all";
  policy?: string;
  episodes?: number;
  seed?: string;
  temperature?: number;
  maxSteps?: number;
  store?: string;
}

export function registerRun(program: Command, out: () => Output): void {
  program
    .command("run")
    .description("play episodes with a policy and record every step in the run store")
    .option("-c, --config <file>", "YAML or JSON config file (flags override it)")
    .option("--env <name>", "environment: frozenlake | web")
    .option("--suite <name>", "task suite of the environment (web: builtin)")
    .option("--tasks-dir <dir>", "load a directory of MiniWoB++-protocol pages as the suite (web)")
    .option("--tasks <ids>", "comma-separated task ids, or all", listOption)
    .option("--policy <name>", "random | scripted | oracle | heuristic | llm")
    .option("-n, --episodes <n>", "episodes per task", intOption)
    .option("--seed <seed>", "root seed (episode seeds are stable hashes of it)")
    .option("--temperature <t>", "policy sampling temperature", floatOption)
    .option("--max-steps <n>", "step limit per episode (default: the task's)", intOption)
    .option("--store <dir>", "run store directory", undefined)
    .action(async (flags: RunFlags) => {
      const o = out();
      const config = resolveRunConfig(
        flags.config ? readConfigFile(flags.config) : {},
        {
          env: flags.env,
          suite: flags.suite,
          tasksDir: flags.tasksDir,
          tasks: flags.tasks,
          policy: flags.policy,
          episodes: flags.episodes,
          seed: flags.seed,
          temperature: flags.temperature,
          maxSteps: flags.maxSteps,
          store: flags.store,
        },
        flags.config ?? "options",
      );
      const runtime = createCliRuntime(config.seed);
      const store = openCliStore(config.store);
      const env = await createEnvironmentFromConfig(config, runtime);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once("SIGINT", onSigint);
      let runId: string | undefined;
      try {
        const tasks = selectTasks(env.suite, config.tasks);
        const policy = await createPolicyFromConfig(config, runtime);
        runId = runtime.ids.next("run");
        store.createRun({
          id: runId,
          kind: "run",
          seed: config.seed,
          config,
          codeVersion: codeVersion(),
          createdAtMs: runtime.clock.nowMs(),
        });
        for (const t of tasks) store.putTask(runId, t);
        const progress = createProgress(tasks.length * config.episodes, { json: o.json, label: "episodes" });
        let successes = 0;
        const { summary } = await runEpisodes(
          {
            env,
            policy,
            runtime,
            store,
            signal: controller.signal,
            onEpisode: (r, done) => {
              if (r.outcome?.success) successes += 1;
              progress.update(done, { successRate: formatPercent(successes / done) });
            },
          },
          {
            runId,
            tasks,
            episodes: config.episodes,
            seed: config.seed,
            temperature: config.temperature,
            ...(config.maxSteps ? { maxSteps: config.maxSteps } : {}),
          },
        );
        progress.stop();
        const status = controller.signal.aborted ? "interrupted" : "complete";
        store.updateRun(runId, { status, summary: { ...summary }, updatedAtMs: runtime.clock.nowMs() });
        await policy.close?.();
        printRunSummary(o, { runId, status, env: config.env, policy: config.policy, summary });
      } catch (e) {
        if (runId) markRunFailed(store, runId, runtime, e);
        throw e;
      } finally {
        process.off("SIGINT", onSigint);
        await env.close();
        store.close();
      }
    });
}
