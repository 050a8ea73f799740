import type { Candidate, Policy, PolicyContext, Proposal, Usage } from "../core/policy.ts";
import type { ChatClient } from "../llm/client.ts";
import type { LlmConfig } from "../llm/config.ts";
import type { ChatMessage } from "../llm/messages.ts";
import { parseAction } from "../llm/parse-action.ts";
import { buildAgentMessages, type PromptOptions } from "../llm/prompts.ts";

/** What a continuation decides about one reply of a sample. */
export type ContinuationTurn =
  /** The sample is final: `text` is appended to its transcript as is. */
  | { kind: "final"; text: string }
  /**
   * The sample goes on: `kept` (the policy's own text, sent back as the assistant message) and the
   * injected `answer` (sent as the next user message) join the transcript as `kept\nanswer\n`.
   */
  | { kind: "continue"; kept: string; answer: string };

/** One sample's conversation with whatever answers its calls; a fresh one per sample and step. */
export interface ContinuationSession {
  next(reply: string): Promise<ContinuationTurn>;
}

/**
 * A hook that lets the policy's replies be interrupted and continued (e.g. `<call_wm>` calls
 * answered by a world model, `src/rl/call-wm.ts`). Every completion is sent with `stop`; each reply
 * goes to the sample's session, which either ends the sample or injects an answer and continues.
 */
export interface LlmContinuation {
  stop: ReadonlyArray<string>;
  start(context: PolicyContext): ContinuationSession;
  /** The part of the final transcript the action is parsed from (default: all of it). */
  actionText?(transcript: string): string;
}

export interface LlmPolicyOptions {
  client: ChatClient;
  /** Defaults to the client's config (used for the policy name and the token budget). */
  config?: LlmConfig;
  promptOptions?: PromptOptions;
  /** Default `llm:<model>`. */
  name?: string;
  /** Replies interrupted and continued (in-reasoning calls); none: one completion per sample. */
  continuation?: LlmContinuation;
}

/** Policies made by `createLlmPolicy`, with the options they were made with (for wrappers). */
const llmPolicies = new WeakMap<Policy, LlmPolicyOptions>();

/** The options an llm policy was made with; undefined for any other policy. */
export function llmPolicyOptionsOf(policy: Policy): LlmPolicyOptions | undefined {
  return llmPolicies.get(policy);
}

function addUsage(total: Usage, u: Usage): void {
  total.promptTokens += u.promptTokens;
  total.completionTokens += u.completionTokens;
  total.calls += u.calls;
}

/**
 * A policy that asks an OpenAI-compatible model for n samples and parses each into an action. A reply
 * that does not parse is a candidate with `action: null` and a `parseError`; provider failures throw
 * ProviderError. With a `continuation`, each sample is continued (one completion at a time) until
 * its session calls it final; the candidate's `raw` is the whole transcript.
 */
export function createLlmPolicy(options: LlmPolicyOptions): Policy {
  const config = options.config ?? options.client.config;
  const continuation = options.continuation;
  const policy: Policy = {
    name: options.name ?? `llm:${config.model}`,
    async propose(context, { n, temperature, random, signal }): Promise<Proposal> {
      const messages = buildAgentMessages(context, options.promptOptions ?? {});
      const seed = random.int(2_147_483_647);
      const complete = (msgs: ChatMessage[], count: number, s: number) =>
        options.client.complete({
          messages: msgs,
          n: count,
          temperature,
          maxTokens: config.maxTokens,
          seed: s,
          ...(continuation ? { stop: continuation.stop } : {}),
          ...(signal ? { signal } : {}),
        });
      const result = await complete(messages, n, seed);
      const usage: Usage = { ...result.usage };
      /** Sample i's transcript: its replies continued through the session until final. */
      const transcript = async (first: string, i: number): Promise<string> => {
        if (!continuation) return first;
        const session = continuation.start(context);
        const msgs = [...messages];
        let raw = "";
        let reply = first;
        for (let turn = 1; ; turn++) {
          const t = await session.next(reply);
          if (t.kind === "final") return raw + t.text;
          raw += `${t.kept}\n${t.answer}\n`;
          msgs.push({ role: "assistant", content: t.kept }, { role: "user", content: t.answer });
          // Continuation k of sample i gets its own seed, distinct from every first-turn seed.
          const next = await complete(msgs, 1, (seed + turn * n + i) % 2_147_483_647);
          addUsage(usage, next.usage);
          reply = next.texts[0] ?? "";
        }
      };
      const raws = await Promise.all(result.texts.map(transcript));
      const candidates = raws.map((raw): Candidate => {
        const parsed = parseAction(continuation?.actionText ? continuation.actionText(raw) : raw);
        return parsed.ok ? { action: parsed.action, raw } : { action: null, raw, parseError: parsed.error };
      });
      return { candidates, usage };
    },
  };
  llmPolicies.set(policy, options);
  return policy;
}
