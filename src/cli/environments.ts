import type { Environment, Runtime, Task, TaskSuite } from "../core/index.ts";
import { UserError } from "../core/index.ts";
import { createFrozenLakeEnvironment } from "../envs/frozenlake/index.ts";
import type { RunConfig } from "./config.ts";

/**
 * Builds the environment a config names. Environments start lazily: the web environment launches its
 * browser on the first reset, so listing a suite starts none.
 */
export async function createEnvironmentFromConfig(
  config: Pick<RunConfig, "env" | "envOptions" | "suite" | "tasksDir">,
  runtime: Runtime,
): Promise<Environment> {
  switch (config.env) {
    case "frozenlake":
      return createFrozenLakeEnvironment(config.envOptions);
    case "chess": {
      const { createChessEnvironment } = await import("../envs/chess/index.ts");
      return createChessEnvironment(config.envOptions);
    }
    case "web": {
      // The web module (and Playwright) loads only when a web environment is asked for.
      const { createWebEnvironment } = await import("../envs/web/index.ts");
      if (config.suite !== "builtin" && !config.tasksDir) {
        throw new UserError(
          "env.unknown_suite",
          `unknown web suite ${config.suite}; use --suite builtin or --tasks-dir DIR`,
        );
      }
      return createWebEnvironment(
        { ...config.envOptions, ...(config.tasksDir ? { tasksDir: config.tasksDir } : {}) },
        { logger: runtime.logger },
      );
    }
  }
}

/** The tasks a config selects ("all" or ids); unknown ids are a UserError naming the known ones. */
export function selectTasks(suite: TaskSuite, tasks: "all" | string[]): Task[] {
  if (tasks === "all") return [...suite.list()];
  return tasks.map((id) => suite.get(id));
}
