import OpenAI from "openai";
import { z } from "zod";
import { ProviderError } from "../core/errors.ts";
import type { Usage } from "../core/policy.ts";
import type { Runtime } from "../core/runtime.ts";
import { createLimiter } from "./concurrency.ts";
import type { LlmConfig } from "./config.ts";
import { type ChatMessage, toWireMessages, type WireRequest } from "./messages.ts";
import { type AttemptFailure, classifyFailure, isNUnsupported, toProviderError } from "./provider-errors.ts";
import { backoffDelayMs, realSleep, type Sleep } from "./retry.ts";

export interface ChatRequest {
  messages: ReadonlyArray<ChatMessage>;
  /** Samples wanted (default 1). */
  n?: number;
  /** Default: the config's temperature. */
  temperature?: number;
  /** Default: the config's maxTokens. */
  maxTokens?: number;
  /** Sampling seed; sample i of a fallback gets `seed + i`. Sent only when the config's `sendSeed`. */
  seed?: number;
  /** Stop sequences: the reply ends before the first of them (not included). Sent only when non-empty. */
  stop?: ReadonlyArray<string>;
  signal?: AbortSignal;
}

export interface ChatResult {
  /** Exactly n texts, in sample order (an empty string when a choice had no content). */
  texts: string[];
  usage: Usage;
}

/** One successful HTTP exchange, as sent and received (for recording fixtures). */
export interface ChatExchange {
  request: WireRequest;
  texts: string[];
  usage: { promptTokens: number; completionTokens: number };
}

export interface ChatClient {
  readonly config: LlmConfig;
  complete(request: ChatRequest): Promise<ChatResult>;
  /** Totals over every call this client made. */
  totalUsage(): Usage;
  /** False once the server was found to ignore or reject `n` > 1. */
  nSupported(): boolean;
}

export interface ChatClientOptions {
  sleep?: Sleep;
  /** Called after each successful HTTP exchange, e.g. `(e) => recordFixture(path, e)`. */
  onExchange?: (exchange: ChatExchange) => void;
  /** Custom fetch for the openai package. */
  fetch?: typeof fetch;
}

/** Tolerant: servers differ; only what we use is required. */
const CompletionResponseSchema = z.object({
  choices: z.array(
    z.object({
      index: z.number().int().optional(),
      message: z
        .object({
          content: z
            .union([
              z.string(),
              z.array(z.object({ type: z.string().optional(), text: z.string().optional() })),
            ])
            .nullish(),
        })
        .nullish(),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

function choiceText(content: string | Array<{ text?: string | undefined }> | null | undefined): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? "").join("");
  return "";
}

/** The client for an OpenAI-compatible chat endpoint: own retries, n fallback, usage accounting. */
export function createChatClient(
  config: LlmConfig,
  runtime: Runtime,
  options: ChatClientOptions = {},
): ChatClient {
  const sleep = options.sleep ?? realSleep;
  const random = runtime.random("llm", "retry-jitter");
  const logger = runtime.logger.child({ component: "llm", baseUrl: config.baseUrl, model: config.model });
  const limiter = createLimiter(config.concurrency);
  const openai = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey ?? "no-key",
    timeout: config.timeoutMs,
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  let nSupport = config.supportsN;
  const total: Usage = { promptTokens: 0, completionTokens: 0, calls: 0 };

  interface CallResult {
    texts: string[];
    promptTokens: number;
    completionTokens: number;
  }

  /** A 200 whose body is not a usable chat completion: the server is not (quite) OpenAI-compatible. */
  function notACompletion(code: string, reason: string, cause?: unknown): ProviderError {
    return new ProviderError(
      code,
      `LLM response from ${config.baseUrl} (model ${config.model}) is not a chat completion: ${reason}. Fix: check the base URL points at an OpenAI-compatible /v1 API and the server's logs`,
      {
        details: { baseUrl: config.baseUrl, model: config.model },
        ...(cause === undefined ? {} : { cause }),
      },
    );
  }

  async function attempt(body: WireRequest, signal: AbortSignal | undefined): Promise<CallResult> {
    const raw: unknown = await limiter.run(async () => {
      try {
        return await openai.chat.completions.create(
          body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
          signal ? { signal } : {},
        );
      } catch (error) {
        // The openai package parses a JSON content type itself; a body that does not parse throws here.
        if (error instanceof SyntaxError)
          throw notACompletion(
            "provider.bad_response",
            `HTTP 200 with a body that is not JSON (${error.message})`,
            error,
          );
        throw error;
      }
    });
    const parsed = CompletionResponseSchema.safeParse(raw);
    if (!parsed.success)
      throw notACompletion(
        "provider.bad_response",
        `${parsed.error.issues[0]?.message ?? "invalid"} at ${parsed.error.issues[0]?.path.join(".") || "the top level"}`,
      );
    if (parsed.data.choices.length === 0)
      throw notACompletion(
        "provider.no_choices",
        "the reply has no choices (`choices: []`), so there is no text to act on",
      );
    const choices = [...parsed.data.choices]
      .map((c, i) => ({ index: c.index ?? i, text: choiceText(c.message?.content) }))
      .sort((a, b) => a.index - b.index);
    return {
      texts: choices.map((c) => c.text),
      promptTokens: Math.max(0, Math.round(parsed.data.usage?.prompt_tokens ?? 0)),
      completionTokens: Math.max(0, Math.round(parsed.data.usage?.completion_tokens ?? 0)),
    };
  }

  /** One HTTP request with retries. Throws the last AttemptFailure when it gives up. */
  async function call(body: WireRequest, signal: AbortSignal | undefined): Promise<CallResult> {
    for (let attemptIndex = 0; ; attemptIndex++) {
      try {
        const result = await attempt(body, signal);
        total.calls++;
        total.promptTokens += result.promptTokens;
        total.completionTokens += result.completionTokens;
        options.onExchange?.({
          request: body,
          texts: result.texts,
          usage: { promptTokens: result.promptTokens, completionTokens: result.completionTokens },
        });
        return result;
      } catch (error) {
        const failure = classifyFailure(error, runtime.clock.nowMs());
        if (!failure.retryable || attemptIndex >= config.maxRetries)
          throw Object.assign(failure, { attempts: attemptIndex + 1 });
        const delayMs =
          failure.retryAfterMs ??
          backoffDelayMs(attemptIndex, random, {
            baseDelayMs: config.retryBaseDelayMs,
            maxDelayMs: config.retryMaxDelayMs,
          });
        logger.warn("llm request failed; retrying", {
          kind: failure.kind,
          status: failure.status,
          attempt: attemptIndex + 1,
          delayMs,
        });
        await sleep(delayMs, signal);
      }
    }
  }

  function isFailure(value: unknown): value is AttemptFailure & { attempts: number } {
    return typeof value === "object" && value !== null && "kind" in value && "retryable" in value;
  }

  function fail(error: unknown): never {
    if (isFailure(error))
      throw toProviderError(error, {
        baseUrl: config.baseUrl,
        model: config.model,
        attempts: error.attempts,
        timeoutMs: config.timeoutMs,
      });
    throw error;
  }

  function wireBody(request: ChatRequest, n: number, seed: number | undefined): WireRequest {
    return {
      model: config.model,
      messages: toWireMessages(request.messages),
      n,
      temperature: request.temperature ?? config.temperature,
      max_tokens: request.maxTokens ?? config.maxTokens,
      ...(seed !== undefined && config.sendSeed ? { seed } : {}),
      ...(request.stop && request.stop.length > 0 ? { stop: [...request.stop] } : {}),
    };
  }

  const sampleSeed = (seed: number | undefined, i: number) =>
    seed === undefined ? undefined : (seed + i) % 2_147_483_647;

  return {
    config,
    totalUsage: () => ({ ...total }),
    nSupported: () => nSupport,
    async complete(request) {
      const n = request.n ?? 1;
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`complete needs n >= 1, got ${n}`);
      const usage: Usage = { promptTokens: 0, completionTokens: 0, calls: 0 };
      const add = (r: CallResult) => {
        usage.calls++;
        usage.promptTokens += r.promptTokens;
        usage.completionTokens += r.completionTokens;
      };
      const texts: string[] = [];
      try {
        if (n === 1 || nSupport) {
          try {
            const r = await call(wireBody(request, n, request.seed), request.signal);
            add(r);
            texts.push(...r.texts.slice(0, n));
            if (n > 1 && r.texts.length < n) {
              nSupport = false;
              logger.warn("server returned fewer choices than n; using single calls", {
                n,
                choices: r.texts.length,
              });
            }
          } catch (error) {
            if (!(n > 1 && isFailure(error) && isNUnsupported(error))) throw error;
            nSupport = false;
            logger.warn("server rejected n > 1; using single calls", { n, message: error.message });
          }
        }
        const missing = Array.from({ length: n - texts.length }, (_, i) => texts.length + i);
        const single = await Promise.all(
          missing.map(async (i) => {
            const r = await call(wireBody(request, 1, sampleSeed(request.seed, i)), request.signal);
            add(r);
            return r.texts[0] ?? "";
          }),
        );
        texts.push(...single);
      } catch (error) {
        fail(error);
      }
      return { texts, usage };
    },
  };
}
