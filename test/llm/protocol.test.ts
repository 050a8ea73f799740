import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/core/index.ts";
import { createChatClient, parseLlmConfig } from "../../src/llm/index.ts";
import { cliInProcess } from "../export/cli.ts";
import { MODEL, userMessages } from "./cases.ts";
import { recordingSleep, testRuntime } from "./helpers.ts";

/** A local endpoint that answers every request with HTTP 200 and the given body. */
let server: Server | undefined;
let hits = 0;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function endpoint(contentType: string, body: string): Promise<string> {
  hits = 0;
  server = createServer((req, res) => {
    hits += 1;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": contentType });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function failure(baseUrl: string): Promise<ProviderError> {
  const client = createChatClient(
    parseLlmConfig({ baseUrl, model: MODEL, timeoutMs: 10_000, maxRetries: 2 }),
    testRuntime(),
    { sleep: recordingSleep().sleep },
  );
  const error = await client.complete({ messages: userMessages("protocol"), temperature: 0 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const completion = (choices: unknown) =>
  JSON.stringify({
    id: "x",
    object: "chat.completion",
    choices,
    usage: { prompt_tokens: 3, completion_tokens: 0 },
  });

describe("LLM protocol checks on an HTTP 200", () => {
  it("`choices: []` is a provider error (not an empty text the policy counts as a parse error)", async () => {
    const error = await failure(await endpoint("application/json", completion([])));
    expect(error.code).toBe("provider.no_choices");
    expect(error.category).toBe("provider");
    expect(error.message).toContain("no choices");
    expect(error.message).toContain("Fix:");
    // Like every malformed reply, it is not retried: the same server gives the same answer.
    expect(hits).toBe(1);
  });

  it("a reply without `choices` is provider.bad_response naming the field", async () => {
    const error = await failure(await endpoint("application/json", JSON.stringify({ id: "x", usage: {} })));
    expect(error.code).toBe("provider.bad_response");
    expect(error.message).toContain("not a chat completion");
    expect(error.message).toContain("choices");
  });

  it("a JSON content type with a garbage body says the body was not a chat completion, not 'could not connect'", async () => {
    const error = await failure(await endpoint("application/json", "<html>502 Bad Gateway</html>"));
    expect(error.code).toBe("provider.bad_response");
    expect(error.message).toContain("not a chat completion");
    expect(error.message).toContain("not JSON");
    expect(error.message).not.toContain("could not connect");
    expect(hits).toBe(1);
  });

  it("an HTML page on 200 is provider.bad_response", async () => {
    const error = await failure(await endpoint("text/html", "<html>login</html>"));
    expect(error.code).toBe("provider.bad_response");
    expect(error.message).toContain("not a chat completion");
  });
});

describe("rehearsal run --policy llm against an endpoint that answers `choices: []`", () => {
  it("fails as a provider error with exit 4 instead of recording parse errors with exit 0", async () => {
    const baseUrl = await endpoint("application/json", completion([]));
    const store = mkdtempSync(join(tmpdir(), "rehearsal-no-choices-"));
    const saved = { ...process.env };
    Object.assign(process.env, {
      REHEARSAL_LLM_BASE_URL: baseUrl,
      REHEARSAL_LLM_MODEL: MODEL,
      REHEARSAL_LLM_MAX_RETRIES: "0",
    });
    try {
      const args = ["run", "--env", "frozenlake", "--tasks", "4x4", "--policy", "llm", "--episodes", "1"];
      const r = await cliInProcess([...args, "--store", store]);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain("provider.no_choices");
    } finally {
      process.env = saved;
      rmSync(store, { recursive: true, force: true });
    }
  });
});
