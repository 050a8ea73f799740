import { type Command, Option } from "commander";
import { NOISE_TIERS, type NoiseTier } from "../../noise/generator.ts";
import { type CliContext, createCliRuntime } from "../context.ts";
import { intOption, listOption } from "../options.ts";
import { addConfigOptions, type ConfigFlags, configFromFlags } from "../run-options.ts";

interface ListFlags {
  tier?: NoiseTier;
  split: "train" | "heldout" | "all";
}

/** The whole-number flags of a schedule (ScheduleOptions), with their defaults. */
const SCHEDULE_FLAGS: ReadonlyArray<[string, string, number | undefined]> = [
  ["--span <n>", "expected episode length for every task (default: measured with the oracle)", undefined],
  ["--horizon <n>", "episode step limit", 15],
  ["--protected-steps <n>", "no event before this step", 0],
  ["--buffer <n>", "steps left after the recovery cost", 1],
];

/** The shared config flags (no policy or store: a schedule is a file) and the schedule's own. */
interface ScheduleFlags extends ConfigFlags {
  out: string;
  span?: number;
  horizon: number;
  protectedSteps: number;
  buffer: number;
}

export function registerNoise(program: Command, ctx: CliContext): void {
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
    .action(async (flags: ListFlags) => {
      const o = ctx.out();
      // The catalog alone (no schedule or environment code): `noise list` starts fast.
      const { generatorsOf } = await import("../../noise/catalog.ts");
      const { generatorInfo } = await import("../../noise/generator.ts");
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

  const schedule = addConfigOptions(
    noise
      .command("schedule")
      .description(
        "precompute the evaluation noise schedule: one held-out event per task, shared by every policy",
      )
      .requiredOption("--tasks <ids>", "comma-separated task ids, or all", listOption)
      .requiredOption("--out <file>", "schedule file to write (JSON)"),
    ["tasks", "policy", "store"],
  );
  for (const [flag, help, fallback] of SCHEDULE_FLAGS) schedule.option(flag, help, intOption, fallback);
  schedule.action(async (flags: ScheduleFlags) => {
    const o = ctx.out();
    const { generatorByName, parseScheduleOptions, writeScheduleFile } = await import("../../noise/index.ts");
    const { createEnvironmentFromConfig, selectTasks } = await import("../../runner/environments.ts");
    const { evaluationScheduleFor } = await import("../../runner/noise-schedule.ts");
    const options = parseScheduleOptions({
      horizon: flags.horizon,
      protectedSteps: flags.protectedSteps,
      buffer: flags.buffer,
      ...(flags.span === undefined ? {} : { span: flags.span }),
    });
    const config = await configFromFlags(flags, {}, { env: "web" });
    const env = await createEnvironmentFromConfig(config, await createCliRuntime(config.seed));
    try {
      const tasks = selectTasks(env.suite, config.tasks, config.tasksDir);
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
