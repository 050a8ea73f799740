import { createRuntime, type Runtime } from "../core/runtime.ts";
import { KnowledgeOptionsError } from "../knowledge/errors.ts";
import { createLlmWriter } from "../knowledge/llm-writer.ts";
import { createStatisticalWriter, type StatisticalWriterOptions } from "../knowledge/statistical-writer.ts";
import type { KnowledgeWriter } from "../knowledge/writer.ts";
import { createChatClient } from "../llm/client.ts";
import { parseLlmConfig } from "../llm/config.ts";

export interface SklWriterChoice {
  writer: "statistical" | "llm";
  /** LLM client config (see `LlmConfigSchema`) for `writer: "llm"`. */
  llm?: Record<string, unknown> | undefined;
  seed: string | number;
}

/**
 * The knowledge writer an experiment's options name. The LLM writer's client runs on `runtime` (the
 * CLI passes the real one: retry waits on the real clock, warnings to its logger); without one, a
 * deterministic runtime from the seed.
 */
export function createSklWriter(
  what: string,
  choice: SklWriterChoice,
  statistical: StatisticalWriterOptions,
  runtime?: Runtime,
): KnowledgeWriter {
  if (choice.writer === "statistical") return createStatisticalWriter(statistical);
  if (!choice.llm)
    throw new KnowledgeOptionsError(what, 'writer "llm" needs an `llm` config (baseUrl, model)');
  const client = createChatClient(
    parseLlmConfig(choice.llm),
    runtime ?? createRuntime({ seed: String(choice.seed) }),
  );
  return createLlmWriter({
    client,
    ...(statistical.describeState ? { describeState: statistical.describeState } : {}),
  });
}
