import { join } from "node:path";
import { onTestFinished } from "vitest";
import { createMemoryLogger, createRuntime, type Runtime } from "../../src/core/index.ts";
import {
  type ChatClient,
  type ChatClientOptions,
  createChatClient,
  type LlmConfigInput,
  parseLlmConfig,
  type ReplayServer,
  startReplayServer,
} from "../../src/llm/index.ts";
import { MODEL } from "./cases.ts";

export const FIXTURE_DIR = join(import.meta.dirname, "..", "fixtures", "llm");

export function testRuntime(): Runtime & { logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  return { ...createRuntime({ seed: "llm-test", logger }), logger };
}

/** A sleep that returns at once and remembers each requested delay. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms) => {
      delays.push(ms);
    },
  };
}

export interface ClientSetup {
  server: ReplayServer;
  client: ChatClient;
  delays: number[];
  runtime: ReturnType<typeof testRuntime>;
}

export async function replayClient(
  fixture: "client.json" | "policy.json",
  config: Partial<LlmConfigInput> = {},
  options: ChatClientOptions = {},
): Promise<ClientSetup> {
  const server = await startReplayServer({ fixturePath: join(FIXTURE_DIR, fixture) });
  const { sleep, delays } = recordingSleep();
  const runtime = testRuntime();
  const client = createChatClient(
    parseLlmConfig({ baseUrl: server.baseUrl, model: MODEL, timeoutMs: 5_000, maxRetries: 3, ...config }),
    runtime,
    { sleep, ...options },
  );
  return { server, client, delays, runtime };
}

/** A replay server for the running test: closed when the test finishes, passed or failed. */
export async function startTestReplayServer(
  options: Parameters<typeof startReplayServer>[0],
): Promise<ReplayServer> {
  const server = await startReplayServer(options);
  onTestFinished(() => server.close());
  return server;
}

/** The body of a minimal OpenAI chat completion whose one choice says `content` (for local test servers). */
export function chatCompletionBody(content: string): string {
  return JSON.stringify({
    id: "x",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1 },
  });
}
