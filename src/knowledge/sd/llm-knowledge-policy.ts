import type { Action } from "../../core/action.ts";
import { canonicalJson } from "../../core/hash.ts";
import type { Candidate, Policy, PolicyContext, Usage } from "../../core/policy.ts";
import type { ChatClient } from "../../llm/client.ts";
import type { ChatMessage } from "../../llm/messages.ts";
import { parseAction } from "../../llm/parse-action.ts";
import { buildAgentMessages } from "../../llm/prompts.ts";
import type { KnowledgeTable } from "../knowledge-table.ts";

export const UNDERSTANDING_SYSTEM_PROMPT =
  "You are an agent's state understanding. Given the task and the current observation, write a short " +
  "assessment of the state: where things are, which actions look risky or promising, and why. Plain text.";

/** Stage 1: the prompt that asks for a state understanding when the table has none. */
export function understandingMessages(context: PolicyContext): ChatMessage[] {
  const { observation, task } = context;
  return [
    { role: "system", content: UNDERSTANDING_SYSTEM_PROMPT },
    {
      role: "user",
      content: `Task: ${observation.instruction ?? task.instruction}\n\nObservation:\n${observation.text}\n\nYour assessment:`,
    },
  ];
}

/** Stage 2: the agent prompt with the state understanding appended to the user turn. */
export function knowledgeActionMessages(context: PolicyContext, understanding: string): ChatMessage[] {
  const messages = buildAgentMessages(context, { includeScreenshot: false });
  return messages.map((m) =>
    m.role === "user" && typeof m.content === "string"
      ? { ...m, content: `${m.content}\n\nState understanding: ${understanding}` }
      : m,
  );
}

export interface LlmKnowledgePolicyOptions {
  client: ChatClient;
  table: KnowledgeTable;
  /** Keys to read the understanding from, most specific first (default: the observation's stateKey). */
  keys?: (context: PolicyContext) => ReadonlyArray<string>;
  name?: string;
  maxTokens?: number;
}

function addUsage(total: Usage, more: Usage): void {
  total.calls += more.calls;
  total.promptTokens += more.promptTokens;
  total.completionTokens += more.completionTokens;
}

/**
 * Knowledge-conditioned acting with a model, in two stages: the state understanding z (the table's
 * entry when present, else asked of the model), then the action conditioned on z. A reply that is not a
 * legal action becomes a random legal one, and the candidate's raw JSON records that
 * (`"fallback": true` with the parse error). Reads only: it never writes the table.
 */
export function createLlmKnowledgePolicy(options: LlmKnowledgePolicyOptions): Policy {
  const keys =
    options.keys ??
    ((c: PolicyContext) => (c.observation.stateKey === undefined ? [] : [c.observation.stateKey]));
  const maxTokens = options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens };
  return {
    name: options.name ?? "llm-knowledge",
    async propose(context, propose) {
      const usage: Usage = { promptTokens: 0, completionTokens: 0, calls: 0 };
      const entry = keys(context)
        .map((k) => options.table.read(k))
        .find((e) => e !== undefined);
      let understanding = entry?.text;
      const source = entry ? "table" : "model";
      if (understanding === undefined) {
        const r = await options.client.complete({
          messages: understandingMessages(context),
          temperature: propose.temperature,
          ...maxTokens,
          ...(propose.signal ? { signal: propose.signal } : {}),
        });
        addUsage(usage, r.usage);
        understanding = (r.texts[0] ?? "").trim();
      }
      const r = await options.client.complete({
        messages: knowledgeActionMessages(context, understanding),
        n: propose.n,
        temperature: propose.temperature,
        ...maxTokens,
        ...(propose.signal ? { signal: propose.signal } : {}),
      });
      addUsage(usage, r.usage);
      const legal = context.observation.legalActions;
      const legalKeys = legal?.map((a) => canonicalJson(a));
      const candidates = r.texts.map((text): Candidate => {
        const parsed = parseAction(text);
        const isLegal = parsed.ok && (!legalKeys || legalKeys.includes(canonicalJson(parsed.action)));
        if (parsed.ok && isLegal) {
          return { action: parsed.action, raw: JSON.stringify({ understanding, source, reply: text }) };
        }
        const error = parsed.ok ? "the action is not legal here" : parsed.error.message;
        if (!legal || legal.length === 0) {
          return parsed.ok
            ? { action: null, raw: text, parseError: { code: "illegal_action", message: error } }
            : { action: null, raw: text, parseError: parsed.error };
        }
        const fallback: Action = propose.random.pick(legal);
        return {
          action: fallback,
          raw: JSON.stringify({ understanding, source, reply: text, fallback: true, error }),
        };
      });
      return { candidates, usage };
    },
  };
}
