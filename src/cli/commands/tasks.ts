import type { Command } from "commander";
import { readConfigFile, resolveRunConfig } from "../config.ts";
import { createCliRuntime } from "../context.ts";
import { createEnvironmentFromConfig } from "../environments.ts";
import type { Output } from "../output.ts";

export function registerTasks(program: Command, out: () => Output): void {
  const tasks = program.command("tasks").description("task suites");
  tasks
    .command("list")
    .description("list the tasks of a suite")
    .option("--env <name>", "environment: frozenlake | web")
    .option("--suite <name>", "suite name (web: builtin)")
    .option("--tasks-dir <dir>", "a directory of MiniWoB++-protocol pages (web)")
    .option("-c, --config <file>", "config file")
    .action(async (flags: { env?: string; suite?: string; tasksDir?: string; config?: string }) => {
      const o = out();
      const config = resolveRunConfig(flags.config ? readConfigFile(flags.config) : {}, {
        env: flags.env ?? (flags.suite || flags.tasksDir ? "web" : undefined),
        suite: flags.suite,
        tasksDir: flags.tasksDir,
      });
      const env = await createEnvironmentFromConfig(config, createCliRuntime(config.seed));
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
