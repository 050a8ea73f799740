import type { Environment, Runtime, Task, TaskSuite } from "../core/index.ts";
import { UserError } from "../core/index.ts";
import { createFrozenLakeEnvironment } from "../envs/frozenlake/index.ts";
import type { ChatClient, LlmConfigInput } from "../llm/index.ts";
import type { RunConfig } from "./config.ts";

/**
 * Builds the environment a config names. Environments start lazily: the web environment launches its
 * browser on the first reset, so listing a suite starts none.
 */
export async function createEnvironmentFromConfig(
  config: Pick<RunConfig, "env" | "envOptions" | "suite" | "tasksDir" | "worldbook" | "llm">,
  runtime: Runtime,
): Promise<Environment> {
  if (config.tasksDir && config.env !== "web") {
    throw new UserError(
      "env.tasks_dir_unsupported",
      `--tasks-dir ${config.tasksDir} loads web task pages, but the environment is ${config.env}; add --env web or drop --tasks-dir`,
    );
  }
  switch (config.env) {
    case "frozenlake":
      return createFrozenLakeEnvironment(config.envOptions);
    case "chess": {
      const { createChessEnvironment } = await import("../envs/chess/index.ts");
      return createChessEnvironment(config.envOptions);
    }
    case "terminal": {
      const { createTerminalEnvironment } = await import("../envs/terminal/index.ts");
      return createTerminalEnvironment(config.envOptions);
    }
    case "worldmodel": {
      // The world-model environment simulates the worldbook `--env worldmodel:DIR` names; envOptions are
      // its simulator options (system, onReject, confidenceThreshold, ...).
      const { createWorldModelEnvironment } = await import("../worldmodel/environment/index.ts");
      if (!config.worldbook)
        throw new UserError(
          "env.no_worldbook",
          "the worldmodel environment needs a worldbook directory; use --env worldmodel:DIR",
        );
      return createWorldModelEnvironment({
        dir: config.worldbook.dir,
        ...(config.worldbook.hash === undefined ? {} : { expectedHash: config.worldbook.hash }),
        options: config.envOptions,
        // The LLM proposer talks to the endpoint the config's `llm:` and REHEARSAL_LLM_* name.
        ...(config.envOptions.proposer === "llm" ? { llm: await proposerClient(config, runtime) } : {}),
      });
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

/** The chat client of a world model's LLM proposer (the OpenAI client loads only when asked for). */
async function proposerClient(config: Pick<RunConfig, "llm">, runtime: Runtime): Promise<ChatClient> {
  const { createChatClient, llmConfigFromEnv } = await import("../llm/index.ts");
  const llmConfig = llmConfigFromEnv(process.env, (config.llm ?? {}) as Partial<LlmConfigInput>);
  return createChatClient(llmConfig, runtime);
}

/**
 * The tasks a config selects ("all" or ids); unknown ids are a UserError naming the known ones, and so
 * is a suite with no tasks at all (an empty `--tasks-dir`): a run of nothing is never a success.
 */
export function selectTasks(suite: TaskSuite, tasks: "all" | string[], tasksDir?: string): Task[] {
  if (tasks !== "all") return tasks.map((id) => suite.get(id));
  const all = [...suite.list()];
  if (all.length === 0) {
    throw new UserError(
      "tasks.none",
      tasksDir
        ? `--tasks-dir ${tasksDir} holds no task pages (a folder per task with an index.html); point it at a task directory`
        : `suite ${suite.name} has no tasks; choose another suite`,
    );
  }
  return all;
}
