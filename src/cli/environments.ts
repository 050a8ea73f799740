import type { Environment, Runtime, Task, TaskSuite } from "../core/index.ts";
import { UserError } from "../core/index.ts";
import { createFrozenLakeEnvironment } from "../envs/frozenlake/index.ts";
import type { RunConfig } from "./config.ts";

/**
 * Builds the environment a config names. `lazy` asks for an environment that is only used to list its
 * suite (the web environment then starts no browser).
 */
export async function createEnvironmentFromConfig(
  config: Pick<RunConfig, "env" | "envOptions" | "suite" | "tasksDir">,
  _runtime: Runtime,
  _options: { lazy?: boolean } = {},
): Promise<Environment> {
  switch (config.env) {
    case "frozenlake":
      return createFrozenLakeEnvironment(config.envOptions);
    case "web":
      throw new UserError(
        "env.unavailable",
        "the web environment is not built into this version yet; use --env frozenlake",
      );
  }
}

/** The tasks a config selects ("all" or ids); unknown ids are a UserError naming the known ones. */
export function selectTasks(suite: TaskSuite, tasks: "all" | string[]): Task[] {
  if (tasks === "all") return [...suite.list()];
  return tasks.map((id) => suite.get(id));
}
