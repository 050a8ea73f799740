import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/core/index.ts";
import { createChatClient, fixtureKey, imageDataUrl, parseLlmConfig } from "../../src/llm/index.ts";
import { clientRequest, IMAGE_MESSAGES, MODEL, PNG_BYTES, userMessages } from "./cases.ts";
import { type ClientSetup, recordingSleep, replayClient, testRuntime } from "./helpers.ts";

let setup: ClientSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

async function start(...args: Parameters<typeof replayClient>): Promise<ClientSetup> {
  setup = await replayClient(...args);
  return setup;
}

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("n samples", () => {
  it("takes n choices from one call when the server honours n", async () => {
    const { client, server } = await start("client.json");
    const r = await client.complete({ messages: userMessages("native n"), n: 3, temperature: 1, seed: 7 });
    expect(r.texts).toEqual(["a", "b", "c"]);
    expect(r.usage).toEqual({ promptTokens: 20, completionTokens: 9, calls: 1 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({ n: 3, seed: 7, temperature: 1, model: "replay-model" });
    expect(client.nSupported()).toBe(true);
  });

  it("fills the missing samples with single calls when the server returns fewer choices", async () => {
    const { client, server, runtime } = await start("client.json", { concurrency: 2 });
    const r = await client.complete({ messages: userMessages("ignored n"), n: 3, temperature: 1, seed: 11 });
    expect(r.texts).toEqual(["first", "second", "third"]);
    expect(r.usage).toEqual({ promptTokens: 40, completionTokens: 13, calls: 3 });
    expect(server.requests.map((q) => (q.body as { n: number }).n)).toEqual([3, 1, 1]);
    expect(client.nSupported()).toBe(false);
    expect(runtime.logger.records.some((l) => l.message.includes("fewer choices"))).toBe(true);
  });

  it("falls back to parallel single calls when the server rejects n", async () => {
    const { client, server } = await start("client.json");
    const r = await client.complete({ messages: userMessages("rejected n"), n: 3, temperature: 1, seed: 21 });
    expect(r.texts).toEqual(["r0", "r1", "r2"]);
    expect(r.usage.calls).toBe(3);
    expect(server.requests.map((q) => q.status)).toEqual([400, 200, 200, 200]);
    expect(client.nSupported()).toBe(false);
  });

  it("goes straight to single calls when supportsN is false", async () => {
    const { client, server } = await start("client.json", { supportsN: false });
    const r = await client.complete({
      messages: userMessages("no n support"),
      n: 2,
      temperature: 1,
      seed: 31,
    });
    expect(r.texts).toEqual(["s0", "s1"]);
    expect(server.requests.map((q) => (q.body as { n: number }).n)).toEqual([1, 1]);
  });

  it("keeps at most `concurrency` requests in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const slowFetch: typeof fetch = async (input, init) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        await new Promise((r) => setTimeout(r, 20));
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const { client } = await start("client.json", { supportsN: false, concurrency: 1 }, { fetch: slowFetch });
    await client.complete({ messages: userMessages("no n support"), n: 2, temperature: 1, seed: 31 });
    expect(peak).toBe(1);
  });
});

describe("retries", () => {
  it("retries 429 (honouring Retry-After) and 500, then succeeds", async () => {
    const { client, server, delays } = await start("client.json");
    const r = await client.complete({ messages: userMessages("flaky"), temperature: 1 });
    expect(r.texts).toEqual(["recovered"]);
    expect(server.requests.map((q) => q.status)).toEqual([429, 500, 200]);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBe(2_000);
    // Second retry: exponential backoff with jitter, between half and all of 500 * 2^1 ms.
    expect(delays[1]).toBeGreaterThanOrEqual(500);
    expect(delays[1]).toBeLessThanOrEqual(1_000);
  });

  it("gives up after maxRetries with a ProviderError naming the status, the base URL and a fix", async () => {
    const { client, server, delays } = await start("client.json", { maxRetries: 2 });
    const error = await rejection(client.complete({ messages: userMessages("down"), temperature: 1 }));
    expect(error.code).toBe("provider.http_503");
    expect(error.category).toBe("provider");
    expect(error.message).toContain(server.baseUrl);
    expect(error.message).toContain("after 3 attempts");
    expect(error.message).toContain("Fix:");
    expect(server.requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(delays[1]).toBeGreaterThan(0);
  });

  it("backoff delays grow and stay under the cap", async () => {
    const { client, delays } = await start("client.json", {
      maxRetries: 6,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 1_000,
    });
    await rejection(client.complete({ messages: userMessages("down"), temperature: 1 }));
    expect(delays).toHaveLength(6);
    delays.forEach((d, i) => {
      const ceiling = Math.min(1_000, 100 * 2 ** i);
      expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      expect(d).toBeLessThanOrEqual(ceiling);
    });
  });

  it("does not retry a 401", async () => {
    const { client, server } = await start("client.json");
    const error = await rejection(client.complete({ messages: userMessages("forbidden"), temperature: 1 }));
    expect(error.code).toBe("provider.http_401");
    expect(error.message).toContain("REHEARSAL_LLM_API_KEY");
    expect(server.requests).toHaveLength(1);
  });

  it("times out, retries, and reports provider.timeout when every attempt is too slow", async () => {
    const { client, server } = await start("client.json", { timeoutMs: 150, maxRetries: 1 });
    const error = await rejection(client.complete({ messages: userMessages("slow"), temperature: 1 }));
    expect(error.code).toBe("provider.timeout");
    expect(error.message).toContain("150 ms");
    expect(server.requests).toHaveLength(2);
  });

  it("recovers when only the first attempt times out", async () => {
    // The first reply comes after 5 s; the timeout leaves the immediate second one room on a busy machine.
    const { client } = await start("client.json", { timeoutMs: 1_500, maxRetries: 1 });
    const r = await client.complete({ messages: userMessages("slow once"), temperature: 1 });
    expect(r.texts).toEqual(["in time"]);
  });

  it("reports provider.unreachable when nothing listens", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const { sleep, delays } = recordingSleep();
    const client = createChatClient(parseLlmConfig({ baseUrl, model: MODEL, maxRetries: 2 }), testRuntime(), {
      sleep,
    });
    const error = await rejection(client.complete({ messages: userMessages("flaky"), temperature: 1 }));
    expect(error.code).toBe("provider.unreachable");
    expect(error.message).toContain(baseUrl);
    expect(error.message).toContain("REHEARSAL_LLM_BASE_URL");
    expect(error.details).toMatchObject({ attempts: 3 });
    expect(delays).toHaveLength(2);
  });
});

describe("other failures", () => {
  it("an aborted request is provider.aborted and not retried", async () => {
    const { client, server } = await start("client.json");
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      client.complete({ messages: IMAGE_MESSAGES, temperature: 1, signal: controller.signal }),
    );
    expect(error.code).toBe("provider.aborted");
    expect(server.requests).toHaveLength(0);
  });

  it("a 200 that is not a chat completion is provider.bad_response", async () => {
    const notChat: typeof fetch = async () =>
      new Response(JSON.stringify({ hello: "world" }), { headers: { "content-type": "application/json" } });
    const { client } = await start("client.json", {}, { fetch: notChat });
    const error = await rejection(client.complete({ messages: IMAGE_MESSAGES, temperature: 1 }));
    expect(error.code).toBe("provider.bad_response");
    expect(error.message).toContain("OpenAI-compatible");
  });

  it("an unknown request fails loudly with HTTP 404 naming the fixture key", async () => {
    const { client } = await start("client.json");
    const messages = userMessages("never recorded");
    const key = fixtureKey(clientRequest(messages, 1, undefined, 0.3));
    const error = await rejection(client.complete({ messages, temperature: 0.3 }));
    expect(error.code).toBe("provider.http_404");
    expect(error.message).toContain(key);
    expect(error.message).toContain("recordFixture");
  });
});

describe("images and usage", () => {
  it("sends a PNG as an image_url data URL content part", async () => {
    const { client, server } = await start("client.json");
    const r = await client.complete({ messages: IMAGE_MESSAGES, temperature: 1 });
    expect(r.texts).toEqual(["a blank pixel"]);
    const body = server.requests[0]?.body as { messages: Array<{ content: unknown }> };
    expect(body.messages[0]?.content).toEqual([
      { type: "text", text: "What is in this screenshot?" },
      { type: "image_url", image_url: { url: imageDataUrl(PNG_BYTES, "image/png") } },
    ]);
    expect(imageDataUrl(PNG_BYTES)).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });

  it("adds up token usage per call and over the client's life", async () => {
    const { client } = await start("client.json");
    const a = await client.complete({ messages: IMAGE_MESSAGES, temperature: 1 });
    const b = await client.complete({ messages: userMessages("native n"), n: 3, temperature: 1, seed: 7 });
    expect(a.usage).toEqual({ promptTokens: 85, completionTokens: 4, calls: 1 });
    expect(b.usage).toEqual({ promptTokens: 20, completionTokens: 9, calls: 1 });
    expect(client.totalUsage()).toEqual({ promptTokens: 105, completionTokens: 13, calls: 2 });
  });

  it("sends the API key as a bearer token and max_tokens from the config", async () => {
    const { client, server } = await start("client.json", { apiKey: "sk-test", maxTokens: 77 });
    await client.complete({ messages: IMAGE_MESSAGES, temperature: 1 });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 77 });
  });

  it("reports each successful exchange to onExchange (for recording)", async () => {
    const exchanges: unknown[] = [];
    const { client } = await start("client.json", {}, { onExchange: (e) => exchanges.push(e) });
    await client.complete({ messages: IMAGE_MESSAGES, temperature: 1 });
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ texts: ["a blank pixel"], usage: { promptTokens: 85 } });
  });
});
