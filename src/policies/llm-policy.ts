import type { Candidate, Policy, Proposal } from "../core/policy.ts";
import type { ChatClient } from "../llm/client.ts";
import type { LlmConfig } from "../llm/config.ts";
import { parseAction } from "../llm/parse-action.ts";
import { buildAgentMessages, type PromptOptions } from "../llm/prompts.ts";

export interface LlmPolicyOptions {
  client: ChatClient;
  /** Defaults to the client's config (used for the policy name and the token budget). */
  config?: LlmConfig;
  promptOptions?: PromptOptions;
  /** Default `llm:<model>`. */
  name?: string;
}

/**
 * A policy that asks an OpenAI-compatible model for n samples and parses each into an action. A reply
 * that does not parse is a candidate with `action: null` and a `parseError`; provider failures throw
 * ProviderError.
 */
export function createLlmPolicy(options: LlmPolicyOptions): Policy {
  const config = options.config ?? options.client.config;
  return {
    name: options.name ?? `llm:${config.model}`,
    async propose(context, { n, temperature, random, signal }): Promise<Proposal> {
      const messages = buildAgentMessages(context, options.promptOptions ?? {});
      const result = await options.client.complete({
        messages,
        n,
        temperature,
        maxTokens: config.maxTokens,
        seed: random.int(2_147_483_647),
        ...(signal ? { signal } : {}),
      });
      const candidates = result.texts.map((raw): Candidate => {
        const parsed = parseAction(raw);
        return parsed.ok ? { action: parsed.action, raw } : { action: null, raw, parseError: parsed.error };
      });
      return { candidates, usage: result.usage };
    },
  };
}
