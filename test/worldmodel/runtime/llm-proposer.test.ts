import { describe, expect, it } from "vitest";
import { type Action, createRuntime } from "../../../src/core/index.ts";
import {
  createChatClient,
  type FixtureEntry,
  type FixtureRequest,
  fixtureEntry,
  parseLlmConfig,
  startReplayServer,
} from "../../../src/llm/index.ts";
import {
  createSimulator,
  type SimulationStep,
  type SimulatorOptionsInput,
  type Worldbook,
} from "../../../src/worldmodel/index.ts";
import { HAND_STATE, handBook, rule } from "./helpers.ts";

const click: Action = { type: "click", elementId: "box" };
const ctx = { taskId: "t" };

/**
 * Runs one simulated step against the replay server, answering the model's requests in order with the
 * scripted replies: each run that meets an unrecorded request records the next reply for it (so the
 * fixtures are exactly the requests the proposer sends), until the step completes.
 */
async function scriptedStep(
  book: Worldbook,
  replies: string[],
  options: SimulatorOptionsInput = {},
): Promise<{ step: SimulationStep; calls: number }> {
  const entries: FixtureEntry[] = [];
  for (let i = 0; ; i++) {
    const server = await startReplayServer({ fixtures: { version: 1, entries } });
    try {
      const llm = createChatClient(
        parseLlmConfig({ baseUrl: server.baseUrl, model: "replay-model", maxRetries: 0, timeoutMs: 20_000 }),
        createRuntime({ seed: "llm-proposer" }),
      );
      const sim = createSimulator(book, { proposer: "llm", ...options }, { llm });
      const input = structuredClone(HAND_STATE);
      const step = await sim.step(input, click, ctx, 0);
      expect(input).toEqual(HAND_STATE);
      return { step, calls: server.requests.length };
    } catch (error) {
      const missing = server.requests.find((r) => r.status === 404);
      if (!missing || i >= replies.length) throw error;
      entries.push(fixtureEntry(missing.body as FixtureRequest, { texts: [replies[i] as string] }));
    } finally {
      await server.close();
    }
  }
}

const toggle = rule({
  id: "toggle",
  action: { type: "click", elementId: "box" },
  conditions: [{ path: "box.checked", op: "eq", value: false }],
  outcomes: [{ effects: [{ op: "set", path: "box.checked", value: true }], count: 10, probability: 1 }],
});

describe("LLM tool-loop proposer (recorded responses)", () => {
  it("a valid tool loop: get_state, rules, then propose — committed through the validation gate", async () => {
    const { step, calls } = await scriptedStep(handBook([toggle]), [
      '{"tool":"get_state","paths":["box.checked","panel.open"]}',
      'I will look at the rules.\n{"tool":"rules"}',
      '```json\n{"tool":"propose","effects":[{"op":"set","path":"box.checked","value":true},{"op":"increment","path":"count","value":1}],"reward":1}\n```',
    ]);
    expect(calls).toBe(3);
    expect(step.trace.rejected).toEqual([]);
    expect(step.trace.fired).toEqual(["llm#0.2"]);
    expect(step.state).toEqual({ ...HAND_STATE, "box.checked": true, count: 2 });
    expect(step.reward).toBe(1);
    expect(step.terminated).toBe(false);
    expect(step.trace.candidates).toEqual([
      { rule: "toggle", verdict: "supporting", reason: expect.any(String) },
    ]);
  });

  it("an unparseable reply is a proposal-stage rejection with the parse error, never a crash; retry asks again", async () => {
    const { step } = await scriptedStep(
      handBook([toggle]),
      [
        "The box becomes checked.",
        '{"tool":"propose","effects":[{"op":"set","path":"box.checked","value":true}]}',
      ],
      { onReject: "retry", maxRetries: 1 },
    );
    expect(step.trace.rejected).toEqual([
      {
        stage: "proposal",
        basis: "llm#0.0",
        reason: "model output does not parse: no JSON object in the reply",
      },
    ]);
    expect(step.trace.fired).toEqual(["llm#1.0"]);
    expect(step.state["box.checked"]).toBe(true);

    const abstained = await scriptedStep(
      handBook([toggle]),
      ['{"tool":"propose","effects":[{"op":"flip","path":"box.checked"}]}'],
      {
        onReject: "abstain",
      },
    );
    expect(abstained.step.trace.rejected).toEqual([
      {
        stage: "proposal",
        basis: "llm#0.0",
        reason: expect.stringContaining("not a tool call: effects.0.op"),
      },
    ]);
    expect(abstained.step.trace.unknown).toBe(true);
    expect(abstained.step.state).toEqual(HAND_STATE);
  });

  it("invalid effects are rejected by the validation gate with the reason; the state never changes", async () => {
    const { step, calls } = await scriptedStep(
      handBook([toggle]),
      [
        '{"tool":"propose","effects":[{"op":"set","path":"count","value":7}]}',
        '{"tool":"propose","effects":[{"op":"set","path":"title","value":"New"}]}',
      ],
      { onReject: "retry", maxRetries: 1 },
    );
    expect(calls).toBe(2);
    expect(step.trace.rejected).toEqual([
      {
        stage: "validation",
        basis: "llm#0.0",
        reason: expect.stringContaining("outside the invariant range [0, 3]"),
      },
      {
        stage: "validation",
        basis: "llm#1.0",
        reason: expect.stringContaining("title is constant within an episode"),
      },
    ]);
    expect(step.trace.unknown).toBe(true);
    expect(step.state).toEqual(HAND_STATE);
  });

  it("a model that never proposes is stopped after the turn budget", async () => {
    const { step, calls } = await scriptedStep(
      handBook([toggle]),
      ['{"tool":"rules"}', '{"tool":"evidence"}', '{"tool":"get_state","paths":["count"]}'],
      { llmMaxTurns: 3, onReject: "abstain" },
    );
    expect(calls).toBe(3);
    expect(step.trace.rejected).toEqual([
      { stage: "proposal", basis: "llm#0", reason: "the model did not propose within 3 turns" },
    ]);
    expect(step.trace.unknown).toBe(true);
  });

  it("proposer llm without a client is a user error naming the fix", () => {
    expect(() => createSimulator(handBook([]), { proposer: "llm" })).toThrow(/pass deps\.llm/);
  });
});
