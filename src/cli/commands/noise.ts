import { type Command, Option } from "commander";
import { UserError } from "../../core/index.ts";
import {
  generatorByName,
  generatorInfo,
  generatorsOf,
  NOISE_TIERS,
  type NoiseTier,
  parseScheduleOptions,
  writeScheduleFile,
} from "../../noise/index.ts";
import { readConfigFile, resolveRunConfig } from "../config.ts";
import { createCliRuntime } from "../context.ts";
import { createEnvironmentFromConfig, selectTasks } from "../environments.ts";
import { evaluationScheduleFor } from "../noise-schedule.ts";
import { intOption, listOption } from "../options.ts";
import type { Output } from "../output.ts";

interface ListFlags {
  tier?: NoiseTier;
  split: "train" | "heldout" | "all";
}

interface ScheduleFlags {
  config?: string;
  env?: string;
  suite?: string;
  tasksDir?: string;
  tasks: string[] | "all";
  out: string;
  seed?: string;
  span?: number;
  horizon: number;
  protectedSteps: number;
  buffer: number;
}

export function registerNoise(program: Command, out: () => Output): void {
  const noise = program.command("noise").description("perturbations (OSWorld-Noisy): catalog and schedules");

  noise
    .command("list")
    .description("list the perturbation generators of the catalog")
    .addOption(new Option("--tier <tier>", "only this tier").choices([...NOISE_TIERS]))
    .addOption(
      new Option("--split <split>", "train | heldout | all")
        .choices(["train", "heldout", "all"])
        .default("all"),
    )
    .action((flags: ListFlags) => {
      const o = out();
      const list = generatorsOf(flags.split).filter((g) => !flags.tier || g.tier === flags.tier);
      const totals = {
        generators: list.length,
        heldOut: list.filter((g) => g.heldOut).length,
        byTier: Object.fromEntries(NOISE_TIERS.map((t) => [t, list.filter((g) => g.tier === t).length])),
      };
      o.result({ generators: list.map(generatorInfo), totals });
      o.table(
        ["name", "tier", "cost", "category", "recovery", "fires", "target", "held out"],
        list.map((g) => [
          g.name,
          g.tier,
          g.cost,
          g.category,
          g.recovery,
          g.repeatable ? "repeatable" : "once",
          g.needsTarget ? "yes" : "no",
          g.heldOut ? "yes" : "no",
        ]),
      );
      o.line(
        `${totals.generators} generators (${NOISE_TIERS.map((t) => `${t} ${totals.byTier[t] ?? 0}`).join(", ")}), ${totals.heldOut} held out`,
      );
    });

  noise
    .command("schedule")
    .description(
      "precompute the evaluation noise schedule: one held-out event per task, shared by every policy",
    )
    .requiredOption("--tasks <ids>", "comma-separated task ids, or all", listOption)
    .requiredOption("--out <file>", "schedule file to write (JSON)")
    .option("-c, --config <file>", "YAML or JSON config file")
    .option("--env <name>", "environment (default: web)")
    .option("--suite <name>", "task suite (web: builtin)")
    .option("--tasks-dir <dir>", "a directory of MiniWoB++-protocol pages (web)")
    .option("--seed <seed>", "root seed")
    .option(
      "--span <n>",
      "expected episode length for every task (default: measured with the oracle)",
      intOption,
    )
    .option("--horizon <n>", "episode step limit", intOption, 15)
    .option("--protected-steps <n>", "no event before this step", intOption, 0)
    .option("--buffer <n>", "steps left after the recovery cost", intOption, 1)
    .action(async (flags: ScheduleFlags) => {
      const o = out();
      const options = parseScheduleOptions({
        horizon: flags.horizon,
        protectedSteps: flags.protectedSteps,
        buffer: flags.buffer,
        ...(flags.span === undefined ? {} : { span: flags.span }),
      });
      const fileOptions = flags.config ? readConfigFile(flags.config) : {};
      const config = resolveRunConfig(
        fileOptions,
        {
          env: flags.env ?? (fileOptions.env === undefined ? "web" : undefined),
          suite: flags.suite,
          tasksDir: flags.tasksDir,
          tasks: flags.tasks,
          seed: flags.seed,
        },
        flags.config ?? "options",
      );
      const runtime = createCliRuntime(config.seed);
      const env = await createEnvironmentFromConfig(config, runtime);
      try {
        const tasks = selectTasks(env.suite, config.tasks);
        if (tasks.length === 0) throw new UserError("noise.no_tasks", "no tasks selected; pass --tasks");
        const file = await evaluationScheduleFor(env, tasks, config.seed, options);
        writeScheduleFile(flags.out, file);
        o.result(file);
        o.table(
          ["task", "span", "step", "generator", "tier", "cost"],
          file.tasks.map((t) => {
            const e = t.events[0];
            const g = e ? generatorByName(e.generator) : undefined;
            return [t.taskId, t.span, e?.step ?? "-", e?.generator ?? "-", g?.tier ?? "-", g?.cost ?? "-"];
          }),
        );
        o.line(`wrote ${flags.out}: ${file.tasks.length} tasks, one held-out event each (seed ${file.seed})`);
      } finally {
        await env.close();
      }
    });
}
