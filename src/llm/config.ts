import { z } from "zod";
import { UserError } from "../core/errors.ts";

/**
 * How to reach an OpenAI-compatible chat endpoint (vLLM, SGLang, Ollama, llama.cpp server, LM Studio,
 * OpenAI). Strict: this is user input.
 */
export const LlmConfigSchema = z
  .object({
    /** The server's OpenAI API root, usually ending in `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** The model name the server serves. */
    model: z.string().min(1),
    /** Bearer key; local servers usually need none. */
    apiKey: z.string().min(1).optional(),
    /** Default sampling temperature when a request does not set one. */
    temperature: z.number().min(0).max(2).default(1),
    /** Completion budget per sample (sent as `max_tokens`). */
    maxTokens: z.number().int().positive().max(1_000_000).default(1024),
    /** Per-request timeout. */
    timeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
    /** Retries after the first attempt on 408/409/429/5xx, timeouts and connection errors. */
    maxRetries: z.number().int().min(0).max(20).default(4),
    /** First backoff delay; doubles per retry (with jitter), capped by `retryMaxDelayMs`. */
    retryBaseDelayMs: z.number().int().min(0).max(600_000).default(500),
    retryMaxDelayMs: z.number().int().min(0).max(600_000).default(20_000),
    /** Whether the server honours `n` > 1; when false (or found false) samples are parallel single calls. */
    supportsN: z.boolean().default(true),
    /** Whether to send a per-sample `seed` (reproducible sampling on servers that support it). */
    sendSeed: z.boolean().default(true),
    /** Most HTTP requests in flight at once for this client. */
    concurrency: z.number().int().positive().max(1024).default(4),
  })
  .strict();

export type LlmConfig = z.infer<typeof LlmConfigSchema>;
export type LlmConfigInput = z.input<typeof LlmConfigSchema>;

/** The environment variables `llmConfigFromEnv` reads, by config field. */
export const LLM_ENV_VARS = {
  baseUrl: ["REHEARSAL_LLM_BASE_URL", "OPENAI_BASE_URL"],
  model: ["REHEARSAL_LLM_MODEL"],
  apiKey: ["REHEARSAL_LLM_API_KEY", "OPENAI_API_KEY"],
  temperature: ["REHEARSAL_LLM_TEMPERATURE"],
  maxTokens: ["REHEARSAL_LLM_MAX_TOKENS"],
  timeoutMs: ["REHEARSAL_LLM_TIMEOUT_MS"],
  maxRetries: ["REHEARSAL_LLM_MAX_RETRIES"],
  supportsN: ["REHEARSAL_LLM_SUPPORTS_N"],
  concurrency: ["REHEARSAL_LLM_CONCURRENCY"],
} as const satisfies Partial<Record<keyof LlmConfig, ReadonlyArray<string>>>;

const FIXES: Partial<Record<keyof LlmConfig, string>> = {
  baseUrl:
    "set REHEARSAL_LLM_BASE_URL (or OPENAI_BASE_URL) to the server's API root, e.g. http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1",
  model: "set REHEARSAL_LLM_MODEL to a model name the server serves (GET <baseUrl>/models lists them)",
  apiKey: "set REHEARSAL_LLM_API_KEY (or OPENAI_API_KEY) to a non-empty key, or leave it unset",
  temperature: "use a number from 0 to 2 (REHEARSAL_LLM_TEMPERATURE)",
  maxTokens: "use a positive integer (REHEARSAL_LLM_MAX_TOKENS)",
  timeoutMs: "use a positive integer number of milliseconds (REHEARSAL_LLM_TIMEOUT_MS)",
  maxRetries: "use an integer from 0 to 20 (REHEARSAL_LLM_MAX_RETRIES)",
  supportsN: "use true or false (REHEARSAL_LLM_SUPPORTS_N)",
  concurrency: "use a positive integer (REHEARSAL_LLM_CONCURRENCY)",
};

/** Validates an LLM config; throws a UserError (`config.llm_invalid`) naming each bad field and its fix. */
export function parseLlmConfig(input: unknown): LlmConfig {
  const result = LlmConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(config)";
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    const fix =
      FIXES[field as keyof LlmConfig] ??
      (issue.code === "unrecognized_keys" ? `remove ${issue.keys.join(", ")}` : "see LlmConfigSchema");
    return `${field}: ${missing ? "missing" : issue.message} — ${fix}`;
  });
  throw new UserError("config.llm_invalid", `Invalid LLM config: ${problems.join("; ")}`, {
    details: { issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}

function readNumber(raw: string | undefined): number | string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : raw;
}

function readBoolean(raw: string | undefined): boolean | string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return raw;
}

function first(env: Readonly<Record<string, string | undefined>>, names: ReadonlyArray<string>) {
  for (const name of names) {
    const v = env[name];
    if (v !== undefined && v.trim() !== "") return v.trim();
  }
  return undefined;
}

/**
 * An LLM config from environment variables (see `LLM_ENV_VARS`), with `overrides` (e.g. CLI options)
 * taking precedence. Throws a UserError naming the variable to set when the result is invalid.
 */
export function llmConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  overrides: Partial<LlmConfigInput> = {},
): LlmConfig {
  const fromEnv: Record<string, unknown> = {
    baseUrl: first(env, LLM_ENV_VARS.baseUrl),
    model: first(env, LLM_ENV_VARS.model),
    apiKey: first(env, LLM_ENV_VARS.apiKey),
    temperature: readNumber(first(env, LLM_ENV_VARS.temperature)),
    maxTokens: readNumber(first(env, LLM_ENV_VARS.maxTokens)),
    timeoutMs: readNumber(first(env, LLM_ENV_VARS.timeoutMs)),
    maxRetries: readNumber(first(env, LLM_ENV_VARS.maxRetries)),
    supportsN: readBoolean(first(env, LLM_ENV_VARS.supportsN)),
    concurrency: readNumber(first(env, LLM_ENV_VARS.concurrency)),
  };
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...fromEnv, ...overrides })) if (v !== undefined) merged[k] = v;
  return parseLlmConfig(merged);
}
