import { type Action, ActionSchema, type Policy, type Runtime, UserError } from "../core/index.ts";
import { createChatClient, type LlmConfigInput, llmConfigFromEnv } from "../llm/index.ts";
import { createHeuristicWebPolicy } from "../policies/heuristic-web/heuristic-web-policy.ts";
import { createLlmPolicy } from "../policies/llm-policy.ts";
import { createOraclePolicy } from "../policies/oracle-policy.ts";
import { createRandomPolicy } from "../policies/random-policy.ts";
import { createScriptedPolicy } from "../policies/scripted-policy.ts";
import { createTerminalTemplatePolicy } from "../policies/terminal-template-policy.ts";
import type { RunConfig } from "./config.ts";
import { formatZodIssues } from "./config.ts";

/** Builds the policy a config names. */
export async function createPolicyFromConfig(
  config: Pick<RunConfig, "policy" | "script" | "llm" | "env">,
  runtime: Runtime,
): Promise<Policy> {
  switch (config.policy) {
    case "random":
      return createRandomPolicy();
    case "oracle":
      return createOraclePolicy();
    case "template":
      return createTerminalTemplatePolicy();
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
      return createScriptedPolicy(actions);
    }
    case "heuristic":
    case "heuristic-norecovery":
      if (config.env !== "web")
        throw new UserError(
          "policy.unavailable",
          "the heuristic policy is for the web environment (--env web); use random or oracle",
        );
      return createHeuristicWebPolicy({ recovery: config.policy === "heuristic" });
    case "llm": {
      // Config file `llm:` fields override the REHEARSAL_LLM_* environment variables.
      const llmConfig = llmConfigFromEnv(process.env, (config.llm ?? {}) as Partial<LlmConfigInput>);
      return createLlmPolicy({ client: createChatClient(llmConfig, runtime), config: llmConfig });
    }
  }
}
