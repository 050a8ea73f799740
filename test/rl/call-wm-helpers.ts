import {
  type Action,
  canonicalJson,
  createRuntime,
  type Environment,
  type PolicyContext,
} from "../../src/core/index.ts";
import {
  type ChatMessage,
  createChatClient,
  type FixtureEntry,
  fixtureEntry,
  parseLlmConfig,
  type ReplayServer,
  toWireMessages,
} from "../../src/llm/index.ts";
import { buildAgentMessages } from "../../src/llm/prompts.ts";
import type { LlmPolicyOptions } from "../../src/policies/llm-policy.ts";
import { formatWmAnswer, type WorldModel } from "../../src/rl/index.ts";
import { startTestReplayServer } from "../llm/helpers.ts";

export const MODEL = "call-wm-model";
export const TEMPERATURE = 1;

/** The env's state as a string (snapshot, random state included). */
export async function fingerprint(env: Environment): Promise<string> {
  return canonicalJson(await env.snapshot?.());
}

/** A world model that counts its predictions (the real one does the work). */
export function counting(wm: WorldModel): WorldModel & { predictions: Action[] } {
  const predictions: Action[] = [];
  return {
    name: wm.name,
    predictions,
    predict(action, context) {
      predictions.push(action);
      return wm.predict(action, context);
    },
  };
}

/** The first messages the policy sends for `context` with a WM-call cap. */
export function firstMessages(context: PolicyContext, cap: number): ChatMessage[] {
  return buildAgentMessages(context, { wmCalls: { cap } });
}

/** The continued conversation: after `messages`, the kept assistant text and the injected answer. */
export function continued(messages: ChatMessage[], kept: string, answer: string): ChatMessage[] {
  return [...messages, { role: "assistant", content: kept }, { role: "user", content: answer }];
}

/** A recorded response for exactly these messages (no seed: the tests' client sends none). */
export function entry(messages: ChatMessage[], n: number, texts: string[] | string[][]): FixtureEntry {
  const request = { model: MODEL, messages: toWireMessages(messages), n, temperature: TEMPERATURE };
  if (texts.every((t) => typeof t === "string")) return fixtureEntry(request, { texts: texts as string[] });
  return fixtureEntry(
    request,
    (texts as string[][]).map((t) => ({ texts: t })),
  );
}

/** The answer block the world model gives for `action` in `context` (it has no side effects). */
export async function answerOf(wm: WorldModel, context: PolicyContext, action: Action): Promise<string> {
  return formatWmAnswer(await wm.predict(action, { task: context.task, observation: context.observation }));
}

/** A replay server with these entries (closed when the test finishes) and the llm policy options of a client pointed at it. */
export async function replayLlm(
  entries: FixtureEntry[],
): Promise<{ server: ReplayServer; llm: LlmPolicyOptions }> {
  const server = await startTestReplayServer({ fixtures: { version: 1, entries } });
  const config = parseLlmConfig({
    baseUrl: server.baseUrl,
    model: MODEL,
    sendSeed: false,
    maxRetries: 0,
    timeoutMs: 30_000,
  });
  return { server, llm: { client: createChatClient(config, createRuntime({ seed: "call-wm" })), config } };
}

export const move = (direction: "left" | "down" | "right" | "up"): Action => ({ type: "move", direction });
