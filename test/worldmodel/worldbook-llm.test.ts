import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createRuntime, ProviderError, type StateRecord } from "../../src/core/index.ts";
import {
  createChatClient,
  type FixtureEntry,
  parseLlmConfig,
  type ReplayServer,
  startReplayServer,
} from "../../src/llm/index.ts";
import {
  buildWorldbook,
  readWorldbook,
  type TraceStep,
  type Worldbook,
  writeWorldbook,
} from "../../src/worldmodel/index.ts";
import { parseReviewAnswer, reviewWorldbook } from "../../src/worldmodel/worldbook/llm-review.ts";

const MODEL = "review-model";
const dir = mkdtempSync(join(tmpdir(), "rehearsal-wb-llm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A toy family: `push` moves the agent one cell when the door is open and does nothing when it is locked. */
function steps(): TraceStep[] {
  const out: TraceStep[] = [];
  const doors = ["open", "open", "locked", "open", "locked", "open", "open", "locked"];
  doors.forEach((door, e) => {
    for (let step = 0; step < 2; step++) {
      const pos = door === "open" ? step : 0;
      const state: StateRecord = { pos, door };
      const nextState: StateRecord = { pos: door === "open" ? pos + 1 : pos, door };
      out.push({
        episodeId: `ep-${e}`,
        taskId: "t",
        family: "toy",
        step,
        observation: { text: `pos ${pos} door ${door}` },
        action: { type: "move", direction: "up" },
        nextObservation: { text: `pos ${nextState.pos} door ${door}` },
        reward: 0,
        terminated: false,
        truncated: step === 1,
        state,
        nextState,
        source: "file:toy.jsonl",
      });
    }
  });
  return out;
}

/**
 * The deterministic build's states and evidence, hand-made into one conflicted rule for `push` without
 * the door condition: one outcome (move), and the locked-door transitions (no change) counted against it.
 */
function conflicted(): Worldbook {
  const wb = buildWorldbook(steps());
  const id = "push";
  const evidence = wb.evidence.map((e) => ({
    ...e,
    attribution:
      e.facts.length > 0
        ? { status: "attributed" as const, rule: id, outcome: 0 }
        : { status: "counterexample" as const, rule: id },
  }));
  const moved = evidence.filter((e) => e.attribution.status === "attributed");
  const support = moved.length;
  const counter = evidence.length - support;
  const effects = [{ op: "increment" as const, path: "pos", value: 1, bounds: { min: 0, max: 2 } }];
  return {
    ...wb,
    evidence,
    rules: [
      {
        id,
        action: { type: "move", direction: "up" },
        params: [],
        scope: { tasks: ["t"] },
        conditions: [{ path: "pos", op: "exists" }],
        outcomes: [{ effects, count: support, probability: 1 }],
        stochastic: false,
        support,
        counterexamples: counter,
        withheld: 0,
        confidence: support / (support + counter + 1),
        status: "conflicted",
        evidence: moved.map((e) => e.id),
      },
    ],
  };
}

async function client(entries: FixtureEntry[]) {
  server = await startReplayServer({ fixtures: { version: 1, entries } });
  return createChatClient(
    parseLlmConfig({ baseUrl: server.baseUrl, model: MODEL, timeoutMs: 10_000, maxRetries: 0 }),
    createRuntime({ seed: "wb-llm" }),
    { sleep: async () => {} },
  );
}

/** The key of the one request a review of `wb` sends (read off a replay server that knows no answer). */
async function requestKey(wb: Worldbook): Promise<string> {
  await expect(reviewWorldbook(wb, steps(), { client: await client([]) })).rejects.toBeInstanceOf(
    ProviderError,
  );
  const key = server?.requests[0]?.key;
  expect(key).toBeTruthy();
  return key as string;
}

async function reviewWith(wb: Worldbook, key: string, text: string): Promise<Worldbook> {
  const entry: FixtureEntry = { key, responses: [{ status: 200, texts: [text] }] };
  const reviewed = await reviewWorldbook(wb, steps(), { client: await client([entry]) });
  expect(server?.hits(key)).toBe(1);
  return reviewed;
}

describe("LLM review of tentative and conflicted rules (recorded responses)", () => {
  it("accepts a condition only after re-checking it lowers the counterexamples; the reviews are a worldbook file", async () => {
    const wb = conflicted();
    const before = wb.rules[0]!;
    expect(before.counterexamples).toBe(6);
    const key = await requestKey(wb);
    const body = server?.requests[0]?.body as { messages: Array<{ content: string }>; temperature: number };
    expect(body.temperature).toBe(0);
    expect(body.messages[1]?.content).toContain('"door": "locked"');
    const answer =
      '```json\n{"condition": {"path": "door", "op": "eq", "value": "open"}, "note": "push moves only through an open door"}\n```';
    const reviewed = await reviewWith(wb, key, answer);
    const rule = reviewed.rules[0]!;
    expect(rule.conditions).toEqual([...before.conditions, { path: "door", op: "eq", value: "open" }]);
    expect(rule.counterexamples).toBe(0);
    expect(rule.status).toBe("supported");
    expect(rule.support).toBe(before.support);
    expect(rule.confidence).toBeGreaterThan(before.confidence);
    const review = reviewed.reviews?.reviews[0];
    expect(reviewed.reviews?.model).toBe(MODEL);
    expect(review).toMatchObject({
      rule: rule.id,
      status: "accepted",
      note: "push moves only through an open door",
      before: { counterexamples: 6, status: "conflicted" },
      after: { counterexamples: 0, status: "supported" },
      raw: answer,
    });
    expect(review?.evidence).toHaveLength(6);
    // Written and read back: reviews.json is listed and hashed in the manifest.
    const out = join(dir, "reviewed");
    const manifest = writeWorldbook(out, reviewed);
    expect(manifest.files["reviews.json"]).toMatch(/^[0-9a-f]{64}$/);
    expect(readWorldbook(out).reviews).toEqual(reviewed.reviews);
    expect(readWorldbook(out).rules).toEqual(reviewed.rules);
  });

  it("rejects, with the reason, unparseable output and conditions that drop support or lower nothing; the rule is unchanged", async () => {
    const wb = conflicted();
    const key = await requestKey(wb);
    const cases: Array<[string, RegExp]> = [
      ["The door matters, I think.", /^unparseable answer/],
      [
        '{"condition": {"path": "door", "op": "eq", "value": "locked"}, "note": "x"}',
        /not true on supporting evidence/,
      ],
      [
        '{"condition": {"path": "pos", "op": "exists"}, "note": "x"}',
        /does not lower the counterexamples \(6 of 6/,
      ],
      ['{"condition": {"path": "door", "op": "between", "value": 1}}', /^unparseable answer/],
      ['{"condition": null, "note": "no idea"}', /proposed no condition/],
    ];
    for (const [text, reason] of cases) {
      const reviewed = await reviewWith(wb, key, text);
      await server?.close();
      server = undefined;
      expect(reviewed.rules).toEqual(wb.rules);
      const review = reviewed.reviews?.reviews[0];
      expect(review?.status, text).toBe("rejected");
      expect(review?.reason, text).toMatch(reason);
      expect(review?.raw).toBe(text);
      expect(review?.after).toBeUndefined();
    }
  });

  it("reviews tentative and conflicted rules only, up to maxRules, listing the rest as unreviewed", async () => {
    const wb = buildWorldbook(steps(), { minSupport: 1 });
    expect(wb.rules.every((r) => r.status === "supported")).toBe(true);
    const reviewed = await reviewWorldbook(wb, steps(), { client: await client([]) });
    expect(server?.requests).toHaveLength(0);
    expect(reviewed.reviews).toEqual({ model: MODEL, reviews: [], unreviewed: [] });
    const capped = await reviewWorldbook(conflicted(), steps(), { client: await client([]), maxRules: 0 });
    expect(capped.reviews?.unreviewed).toEqual(["push"]);
  });

  it("parses fenced, bare and prose-wrapped answers", () => {
    expect(
      parseReviewAnswer('Sure: {"condition": {"path": "a", "op": "gt", "value": 2}, "note": "n"}'),
    ).toEqual({
      ok: true,
      answer: { condition: { path: "a", op: "gt", value: 2 }, note: "n" },
    });
    expect(parseReviewAnswer('{"note": "only a note"}')).toEqual({
      ok: true,
      answer: { note: "only a note" },
    });
    expect(parseReviewAnswer('{"condition": {"path": "a"')).toMatchObject({ ok: false });
  });
});
