import type { Command } from "commander";
import { type CliContext, warnIfInterrupted, withResumable } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { formatPercent } from "../output.ts";
import { createProgress } from "../progress.ts";
import {
  addConfigOptions,
  type ConfigFlags,
  configFromFlags,
  rejectResumeConflicts,
} from "../run-options.ts";
import { printRunSummary } from "./run-summary.ts";

interface RunFlags extends ConfigFlags {
  episodes?: number;
  temperature?: number;
  maxSteps?: number;
  resume?: string;
}

export function registerRun(program: Command, ctx: CliContext): void {
  addConfigOptions(
    program.command("run").description("play episodes with a policy and record every step in the run store"),
  )
    .option("-n, --episodes <n>", "episodes per task", positiveIntOption)
    .option("--temperature <t>", "policy sampling temperature", floatOption)
    .option("--max-steps <n>", "step limit per episode (default: the task's)", positiveIntOption)
    .option("--resume <run>", "continue an interrupted run: play only the episodes it is missing")
    .action(async (flags: RunFlags) => {
      const o = ctx.out();
      if (flags.resume) rejectResumeConflicts({ ...flags }, []);
      const config = flags.resume
        ? undefined
        : await configFromFlags(flags, {
            episodes: flags.episodes,
            temperature: flags.temperature,
            maxSteps: flags.maxSteps,
          });
      const { executeRun } = await import("../../runner/execute-run.ts");
      let successes = 0;
      let progress: ReturnType<typeof createProgress> | undefined;
      const run = await withResumable(ctx, config, flags, (deps, spec) =>
        executeRun(deps, {
          ...spec,
          onEpisode: (r, done, total) => {
            progress ??= createProgress(total, { json: o.json, label: "episodes" });
            if (r.outcome?.success) successes += 1;
            progress.update(done, { successRate: formatPercent(successes / done) });
          },
        }),
      ).finally(() => progress?.stop());
      printRunSummary(o, {
        runId: run.runId,
        status: run.status,
        env: run.config.env,
        policy: run.config.policy,
        summary: run.summary,
      });
      warnIfInterrupted(o, { status: run.status, kind: "run", id: run.runId }, run.storeDir);
    });
}
