import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import {
  fixtureKey,
  loadFixtureFile,
  parseFixtureFile,
  recordFixture,
  startReplayServer,
} from "../../src/llm/index.ts";
import { clientRequest, fixtureFiles, IMAGE_MESSAGES, MODEL, userMessages } from "./cases.ts";
import { FIXTURE_DIR } from "./helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "rehearsal-llm-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("fixture files", () => {
  it("the committed fixtures match the case tables (else: npx tsx test/llm/generate-fixtures.ts)", () => {
    for (const [name, text] of Object.entries(fixtureFiles())) {
      const committed = readFileSync(join(FIXTURE_DIR, name), "utf8");
      expect(committed === text, `${name} is stale: run npx tsx test/llm/generate-fixtures.ts`).toBe(true);
      expect(() => loadFixtureFile(join(FIXTURE_DIR, name))).not.toThrow();
    }
  });

  it("keys ignore key order and use the API defaults for n and temperature", () => {
    const a = fixtureKey({ model: "m", messages: [{ role: "user", content: "x" }] });
    const b = fixtureKey({ temperature: 1, n: 1, messages: [{ content: "x", role: "user" }], model: "m" });
    expect(a).toBe(b);
    expect(fixtureKey({ model: "m", messages: [], seed: 1 })).not.toBe(
      fixtureKey({ model: "m", messages: [] }),
    );
  });

  it("rejects invalid fixture files with a UserError naming the problem", () => {
    expect(() => parseFixtureFile({ version: 1, entries: [{ key: "abc", responses: [] }] })).toThrow(
      UserError,
    );
    const key = fixtureKey({ model: "m", messages: [] });
    const dup = { key, responses: [{ texts: ["x"] }] };
    expect(() => parseFixtureFile({ version: 1, entries: [dup, dup] })).toThrow(/duplicate key/);
    expect(() => parseFixtureFile({ version: 2, entries: [] })).toThrow(/version/);
  });

  it("recordFixture writes an entry that the replay server then serves", async () => {
    const path = join(tmp, "recorded.json");
    const request = clientRequest(IMAGE_MESSAGES, 1, 5, 0);
    recordFixture(path, { request, texts: ["hello"], usage: { promptTokens: 3, completionTokens: 1 } });
    recordFixture(path, { request: clientRequest(userMessages("x"), 1), texts: ["second"] }, "a note");
    const file = loadFixtureFile(path);
    expect(file.entries).toHaveLength(2);
    // Image data URLs are summarised in the readable request, not stored whole.
    expect(readFileSync(path, "utf8")).toContain("data:image/png;sha256,");
    const server = await startReplayServer({ fixturePath: path });
    try {
      const res = await fetch(`${server.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...request, max_tokens: 10 }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }>; usage: unknown };
      expect(body.choices[0]?.message.content).toBe("hello");
      expect(body.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
      expect(server.hits(fixtureKey(request))).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("answers unknown requests and routes with JSON 404s", async () => {
    const server = await startReplayServer({ fixtures: { version: 1, entries: [] } });
    try {
      const request = { model: MODEL, messages: [{ role: "user", content: "?" }] };
      const res = await fetch(`${server.baseUrl}/chat/completions`, {
        method: "POST",
        body: JSON.stringify(request),
      });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { key: string; message: string } };
      expect(body.error.key).toBe(fixtureKey(request));
      expect(body.error.message).toContain(fixtureKey(request));
      const other = await fetch(`${server.baseUrl}/embeddings`, { method: "POST", body: "{}" });
      expect(other.status).toBe(404);
      const bad = await fetch(`${server.baseUrl}/chat/completions`, { method: "POST", body: "not json" });
      expect(bad.status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it("listens on 127.0.0.1 only", async () => {
    const server = await startReplayServer({ fixtures: { version: 1, entries: [] } });
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await server.close();
  });
});
