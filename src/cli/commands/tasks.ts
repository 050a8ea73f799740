import type { Command } from "commander";
import { type CliContext, createCliRuntime } from "../context.ts";
import { type ConfigFlags, configFromFlags } from "../run-options.ts";

export function registerTasks(program: Command, ctx: CliContext): void {
  const tasks = program.command("tasks").description("task suites");
  tasks
    .command("list")
    .description("list the tasks of a suite")
    .option("--env <name>", "environment: frozenlake | web | chess | terminal | worldmodel:DIR")
    .option("--suite <name>", "suite name (web: builtin)")
    .option("--tasks-dir <dir>", "a directory of MiniWoB++-protocol pages (web)")
    .option(
      "--tasks-root <dir>",
      "the folder served for --tasks-dir (default: its parent beside core/, common/)",
    )
    .option("-c, --config <file>", "config file")
    .action(async (flags: ConfigFlags) => {
      const o = ctx.out();
      const config = await configFromFlags(flags, {}, flags.suite || flags.tasksDir ? { env: "web" } : {});
      const { createEnvironmentFromConfig } = await import("../../runner/environments.ts");
      const env = await createEnvironmentFromConfig(config, await createCliRuntime(config.seed));
      try {
        const list = env.suite.list();
        o.result({ suite: env.suite.name, family: env.suite.family, tasks: list });
        o.table(
          ["id", "split", "tier", "max steps", "oracle", "instruction"],
          list.map((t) => [
            t.id,
            t.split,
            t.tier ?? "-",
            t.maxSteps ?? "-",
            t.oracle ? "yes" : "no",
            t.instruction.slice(0, 60),
          ]),
        );
        o.line(`${list.length} tasks in suite ${env.suite.name}`);
      } finally {
        await env.close();
      }
    });
}
