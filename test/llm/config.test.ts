import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import { llmConfigFromEnv, parseLlmConfig } from "../../src/llm/index.ts";

function thrown(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error("expected a UserError");
}

describe("LLM config", () => {
  it("fills defaults", () => {
    expect(parseLlmConfig({ baseUrl: "http://127.0.0.1:8000/v1", model: "m" })).toEqual({
      baseUrl: "http://127.0.0.1:8000/v1",
      model: "m",
      temperature: 1,
      maxTokens: 1024,
      timeoutMs: 60_000,
      maxRetries: 4,
      retryBaseDelayMs: 500,
      retryMaxDelayMs: 20_000,
      supportsN: true,
      sendSeed: true,
      concurrency: 4,
    });
  });

  it("reads REHEARSAL_LLM_* variables", () => {
    const c = llmConfigFromEnv({
      REHEARSAL_LLM_BASE_URL: "http://localhost:11434/v1",
      REHEARSAL_LLM_MODEL: "qwen2.5-vl",
      REHEARSAL_LLM_API_KEY: "k1",
      REHEARSAL_LLM_TIMEOUT_MS: "1000",
      REHEARSAL_LLM_SUPPORTS_N: "false",
      REHEARSAL_LLM_CONCURRENCY: "8",
      OPENAI_API_KEY: "k2",
    });
    expect(c).toMatchObject({
      baseUrl: "http://localhost:11434/v1",
      model: "qwen2.5-vl",
      apiKey: "k1",
      timeoutMs: 1000,
      supportsN: false,
      concurrency: 8,
    });
  });

  it("falls back to OPENAI_BASE_URL and OPENAI_API_KEY; overrides win", () => {
    const c = llmConfigFromEnv(
      { OPENAI_BASE_URL: "https://api.openai.com/v1", OPENAI_API_KEY: "sk-x", REHEARSAL_LLM_MODEL: "a" },
      { model: "b" },
    );
    expect(c).toMatchObject({ baseUrl: "https://api.openai.com/v1", apiKey: "sk-x", model: "b" });
  });

  it("names the missing field and the variable to set", () => {
    const e = thrown(() => llmConfigFromEnv({ REHEARSAL_LLM_MODEL: "m" }));
    expect(e.code).toBe("config.llm_invalid");
    expect(e.message).toContain("baseUrl: missing");
    expect(e.message).toContain("REHEARSAL_LLM_BASE_URL");
  });

  it("names a bad value and its fix", () => {
    const e = thrown(() =>
      llmConfigFromEnv({ REHEARSAL_LLM_BASE_URL: "localhost:8000", REHEARSAL_LLM_MODEL: "m" }),
    );
    expect(e.message).toContain("baseUrl:");
    const t = thrown(() =>
      llmConfigFromEnv({
        REHEARSAL_LLM_BASE_URL: "http://h/v1",
        REHEARSAL_LLM_MODEL: "m",
        REHEARSAL_LLM_TIMEOUT_MS: "soon",
      }),
    );
    expect(t.message).toContain("timeoutMs:");
    expect(t.message).toContain("REHEARSAL_LLM_TIMEOUT_MS");
  });

  it("rejects unknown fields", () => {
    const e = thrown(() => parseLlmConfig({ baseUrl: "http://h/v1", model: "m", modle: "x" }));
    expect(e.message).toContain("modle");
  });
});
