import { type Action, ActionSchema, type Policy, type Runtime, UserError } from "../core/index.ts";
import type { LlmConfigInput } from "../llm/index.ts";
import type { RunConfig } from "./config.ts";
import { formatZodIssues } from "./config.ts";

/**
 * Builds the policy a config names. Each policy's module loads only when it is asked for: a random
 * FrozenLake run never loads the LLM client (openai) or the web heuristics.
 */
export async function createPolicyFromConfig(
  config: Pick<RunConfig, "policy" | "script" | "llm" | "env" | "worldbook">,
  runtime: Runtime,
): Promise<Policy> {
  if (config.policy.startsWith("tabular:") || config.policy.startsWith("linear:")) {
    const { trainedPolicyFromSpec } = await import("../policies/trainable/load.ts");
    return trainedPolicyFromSpec(config.policy, config.worldbook?.family ?? config.env);
  }
  switch (config.policy) {
    case "random": {
      const { createRandomPolicy } = await import("../policies/random-policy.ts");
      return createRandomPolicy();
    }
    case "oracle": {
      const { createOraclePolicy } = await import("../policies/oracle-policy.ts");
      return createOraclePolicy();
    }
    case "template": {
      const { createTerminalTemplatePolicy } = await import("../policies/terminal-template-policy.ts");
      return createTerminalTemplatePolicy();
    }
    case "scripted": {
      if (!config.script)
        throw new UserError(
          "policy.no_script",
          "the scripted policy needs a `script:` list of actions in the config file",
        );
      const actions: Action[] = config.script.map((a, i) => {
        const r = ActionSchema.safeParse(a);
        if (!r.success)
          throw new UserError("policy.bad_script", `invalid ${formatZodIssues(r.error, `script.${i}`)}`);
        return r.data;
      });
      const { createScriptedPolicy } = await import("../policies/scripted-policy.ts");
      return createScriptedPolicy(actions);
    }
    case "heuristic":
    case "heuristic-norecovery": {
      if (config.env !== "web" && config.worldbook?.family !== "web")
        throw new UserError(
          "policy.unavailable",
          "the heuristic policy is for the web environment (--env web); use random or oracle",
        );
      const { createHeuristicWebPolicy } = await import("../policies/heuristic-web/heuristic-web-policy.ts");
      return createHeuristicWebPolicy({ recovery: config.policy === "heuristic" });
    }
    case "llm": {
      const { createChatClient, llmConfigFromEnv } = await import("../llm/index.ts");
      const { createLlmPolicy } = await import("../policies/llm-policy.ts");
      // Config file `llm:` fields override the REHEARSAL_LLM_* environment variables.
      const llmConfig = llmConfigFromEnv(process.env, (config.llm ?? {}) as Partial<LlmConfigInput>);
      return createLlmPolicy({ client: createChatClient(llmConfig, runtime), config: llmConfig });
    }
  }
  throw new UserError("policy.unknown", `unknown policy ${config.policy}`);
}
