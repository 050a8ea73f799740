import { afterEach, describe, expect, it } from "vitest";
import { createRandom, createRuntime, ProviderError } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment, createFrozenLakeSuite } from "../../src/envs/frozenlake/index.ts";
import { ExperienceBuffer } from "../../src/knowledge/experience-buffer.ts";
import type { KnowledgeEntry } from "../../src/knowledge/knowledge-entry.ts";
import { createKnowledgeTable } from "../../src/knowledge/knowledge-table.ts";
import { bootstrapMessages, reflectMessages, understandMessages } from "../../src/knowledge/llm-prompts.ts";
import { createLlmWriter, llmActionValues, parseKnowledgeOutput } from "../../src/knowledge/llm-writer.ts";
import {
  createLlmKnowledgePolicy,
  knowledgeActionMessages,
  understandingMessages,
} from "../../src/knowledge/sd/llm-knowledge-policy.ts";
import {
  type ChatMessage,
  createChatClient,
  type FixtureEntry,
  fixtureEntry,
  parseLlmConfig,
  type ReplayServer,
  type ReplayStepInput,
  startReplayServer,
  toWireMessages,
} from "../../src/llm/index.ts";
import { episode, step } from "./helpers.ts";

const MODEL = "replay-model";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function entryFor(messages: ChatMessage[], response: { texts: string[] } | ReplayStepInput[]): FixtureEntry {
  return fixtureEntry({ model: MODEL, messages: toWireMessages(messages), n: 1, temperature: 0 }, response);
}

async function clientWith(entries: FixtureEntry[]) {
  server = await startReplayServer({ fixtures: { version: 1, entries } });
  return createChatClient(
    parseLlmConfig({ baseUrl: server.baseUrl, model: MODEL, timeoutMs: 5_000, maxRetries: 0 }),
    createRuntime({ seed: "llm-writer-test" }),
    { sleep: async () => {} },
  );
}

async function writerWith(entries: FixtureEntry[]) {
  return createLlmWriter({ client: await clientWith(entries) });
}

function buffer(): ExperienceBuffer {
  const b = new ExperienceBuffer();
  b.add(episode("e1", 0, [step("s0", "down", "s1"), step("s1", "right", "hole", { terminal: true })]));
  b.add(
    episode("e2", 0, [step("s0", "right", "s2"), step("s2", "down", "goal", { terminal: true, reward: 1 })]),
  );
  return b;
}

const prior: KnowledgeEntry = {
  key: "s0",
  epoch: 0,
  version: 1,
  writer: "llm",
  fields: { kind: "llm", mode: "understand", values: null },
  text: "Nothing known yet.",
  provenance: { episodeIds: [], continuationIds: [] },
};

describe("parseKnowledgeOutput", () => {
  it("accepts bare, fenced and prose-wrapped JSON", () => {
    expect(parseKnowledgeOutput('{"skip": false, "knowledge": "k"}')).toEqual({
      ok: true,
      output: { skip: false, knowledge: "k" },
    });
    const fenced =
      'Here:\n```json\n{"skip": false, "knowledge": "go right", "values": {"right": 0.5}}\n```\nDone.';
    expect(parseKnowledgeOutput(fenced)).toMatchObject({ ok: true, output: { values: { right: 0.5 } } });
    expect(parseKnowledgeOutput('I think {"skip": true} is right.')).toMatchObject({
      ok: true,
      output: { skip: true },
    });
  });

  it("rejects prose, broken JSON, wrong shapes and empty knowledge", () => {
    for (const text of [
      "",
      "just prose",
      '{"skip": false, "knowledge": ',
      '{"knowledge": "no skip field"}',
      '{"skip": "no", "knowledge": "x"}',
      '{"skip": false, "knowledge": "  "}',
      '{"skip": false, "knowledge": "x", "values": {"left": "high"}}',
    ]) {
      expect(parseKnowledgeOutput(text).ok, text).toBe(false);
    }
  });
});

describe("createLlmWriter", () => {
  it("turns a good Monte Carlo answer into a draft with values and provenance", async () => {
    const b = buffer();
    const continuations = b.continuations("s0", { n: 3, h: 15 });
    const messages = understandMessages("s0", undefined, continuations, (k) => k);
    const answer =
      'Sure.\n```json\n{"skip": false, "knowledge": "Right reaches the goal; down falls.", "values": {"right": 1, "down": -1}}\n```';
    const writer = await writerWith([entryFor(messages, { texts: [answer] })]);
    const draft = await writer.understand({ key: "s0", epoch: 0, prior: undefined, continuations });
    expect(draft).not.toBeNull();
    expect(draft?.writer).toBe("llm");
    expect(draft?.text).toBe("Right reaches the goal; down falls.");
    expect(draft?.fields).toEqual({ kind: "llm", mode: "understand", values: { down: -1, right: 1 } });
    expect(llmActionValues(draft?.fields)).toEqual({ down: -1, right: 1 });
    expect(draft?.provenance.episodeIds).toEqual(["e2", "e1"]);
    expect(draft?.provenance.continuationIds).toEqual(continuations.map((c) => `mc:${c.id}`));
    expect(writer.counts()).toEqual({ calls: 1, drafts: 1, skipped: 0, malformed: 0 });
    const prompt = JSON.stringify(messages);
    expect(prompt).toContain("reached the goal");
    expect(prompt).toContain("Monte Carlo");
  });

  it("bootstraps with the successor's knowledge in the prompt", async () => {
    const b = buffer();
    const continuations = b.continuations("s0", { n: 3, h: 1 });
    const successor = (k: string) =>
      k === "s2" ? { ...prior, key: "s2", text: "Down from s2 wins." } : undefined;
    const messages = bootstrapMessages("s0", prior, continuations, successor, (k) => k);
    expect(JSON.stringify(messages)).toContain("Down from s2 wins.");
    const writer = await writerWith([
      entryFor(messages, { texts: ['{"skip": false, "knowledge": "Go right, then down."}'] }),
    ]);
    const draft = await writer.bootstrap({ key: "s0", epoch: 1, prior, continuations, successor });
    expect(draft?.text).toBe("Go right, then down.");
    expect(draft?.fields).toEqual({ kind: "llm", mode: "bootstrap", values: null });
    expect(draft?.provenance.continuationIds.every((id) => id.startsWith("td:"))).toBe(true);
  });

  it("discards a skip (no draft)", async () => {
    const b = buffer();
    const continuations = b.continuations("s0", { n: 3, h: 15 });
    const messages = understandMessages("s0", prior, continuations, (k) => k);
    const writer = await writerWith([entryFor(messages, { texts: ['{"skip": true, "knowledge": ""}'] })]);
    expect(await writer.understand({ key: "s0", epoch: 0, prior, continuations })).toBeNull();
    expect(writer.counts()).toEqual({ calls: 1, drafts: 0, skipped: 1, malformed: 0 });
    expect(writer.outcomes()[0]).toMatchObject({ mode: "understand", key: "s0", status: "skip" });
  });

  it("counts malformed answers, keeps their raw text and never throws", async () => {
    const b = buffer();
    const continuations = b.continuations("s0", { n: 3, h: 15 });
    const messages = understandMessages("s0", undefined, continuations, (k) => k);
    const bad = ["no json here", '{"skip": false, "knowledge": ', '{"skip": false, "knowledge": ""}'];
    const writer = await writerWith([
      entryFor(
        messages,
        bad.map((text) => ({ texts: [text] })),
      ),
    ]);
    for (let i = 0; i < bad.length; i++) {
      expect(await writer.understand({ key: "s0", epoch: 0, prior: undefined, continuations })).toBeNull();
    }
    expect(writer.counts()).toEqual({ calls: 3, drafts: 0, skipped: 0, malformed: 3 });
    expect(writer.outcomes().map((o) => o.raw)).toEqual(bad);
    expect(writer.outcomes().every((o) => o.status === "malformed" && (o.error ?? "") !== "")).toBe(true);
  });

  it("does not call the model when there is no fresh experience", async () => {
    const writer = await writerWith([]);
    expect(await writer.understand({ key: "s9", epoch: 0, prior: undefined, continuations: [] })).toBeNull();
    expect(writer.counts().calls).toBe(0);
  });

  it("reflects on a whole trajectory into one path-keyed draft", async () => {
    const b = buffer();
    const transitions = b.transitionsOf("e1");
    const messages = reflectMessages(transitions, { success: false, return: 0 }, undefined, (k) => k);
    const writer = await writerWith([
      entryFor(messages, {
        texts: ['{"skip": false, "knowledge": "Avoid down at the start.", "values": {"down": -1}}'],
      }),
    ]);
    const drafts = await writer.reflectTrajectory({
      epoch: 0,
      episode: { id: "e1", taskId: "map", transitions, success: false, return: 0 },
      pathKey: (s) => `path:map:step=${s}`,
      prior: () => undefined,
    });
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({ key: "path:map:step=0", expectedVersion: 0 });
    expect(drafts[0]?.draft.text).toBe("Avoid down at the start.");
  });

  it("surfaces a provider failure as a typed ProviderError", async () => {
    const b = buffer();
    const continuations = b.continuations("s0", { n: 3, h: 15 });
    const messages = understandMessages("s0", undefined, continuations, (k) => k);
    const writer = await writerWith([entryFor(messages, [{ status: 500, error: "model crashed" }])]);
    const error = await writer.understand({ key: "s0", epoch: 0, prior: undefined, continuations }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("provider.http_500");
  });
});

describe("createLlmKnowledgePolicy", () => {
  async function context() {
    const suite = createFrozenLakeSuite({ standard: ["4x4"], randomMaps: [] });
    const env = createFrozenLakeEnvironment({ slippery: false }, { suite });
    const observation = await env.reset({ taskId: "4x4", seed: 0 });
    const task = suite.get("4x4");
    return { task, observation, history: [], stepIndex: 0 };
  }

  it("asks for a state understanding when the table has none, then acts on it", async () => {
    const ctx = await context();
    const z = "Holes lie below and to the right; moving right along the top row is safe.";
    const policy = createLlmKnowledgePolicy({
      client: await clientWith([
        entryFor(understandingMessages(ctx), { texts: [z] }),
        entryFor(knowledgeActionMessages(ctx, z), {
          texts: ['Go.\nAction: {"type":"move","direction":"right"}'],
        }),
      ]),
      table: createKnowledgeTable(),
    });
    const p = await policy.propose(ctx, { n: 1, temperature: 0, random: createRandom("t") });
    expect(p.candidates[0]?.action).toEqual({ type: "move", direction: "right" });
    expect(JSON.parse(p.candidates[0]?.raw ?? "{}")).toMatchObject({ understanding: z, source: "model" });
    expect(p.usage?.calls).toBe(2);
  });

  it("reads the understanding from the table and falls back to a random legal action on a bad reply", async () => {
    const ctx = await context();
    const table = createKnowledgeTable();
    const key = ctx.observation.stateKey as string;
    await table.write({
      key,
      epoch: 0,
      expectedVersion: 0,
      writer: "llm",
      fields: {},
      text: "Down is deadly here.",
      provenance: { episodeIds: [], continuationIds: [] },
    });
    const policy = createLlmKnowledgePolicy({
      client: await clientWith([
        entryFor(knowledgeActionMessages(ctx, "Down is deadly here."), { texts: ["I am not sure."] }),
      ]),
      table,
    });
    const p = await policy.propose(ctx, { n: 1, temperature: 0, random: createRandom("t") });
    const c = p.candidates[0];
    expect(ctx.observation.legalActions).toContainEqual(c?.action);
    expect(JSON.parse(c?.raw ?? "{}")).toMatchObject({
      source: "table",
      fallback: true,
      reply: "I am not sure.",
    });
    expect(p.usage?.calls).toBe(1);
  });
});
