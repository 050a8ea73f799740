import { describe, expect, it } from "vitest";
import { createRuntime, SCHEMA_VERSION, type StepRecord, type Trajectory } from "../../src/core/index.ts";
import { createChatClient, parseLlmConfig } from "../../src/llm/index.ts";
import {
  agreementOf,
  clipText,
  confusionOf,
  JudgeOptionsSchema,
  judgeTrajectory,
  judgeUserMessage,
  parseJudgeReply,
} from "../../src/rl/judge/index.ts";
import { startTestReplayServer } from "../llm/helpers.ts";
import { JUDGE_MODEL, judgeFixtures, verdict } from "./judge-fixtures.ts";

const options = JudgeOptionsSchema.parse({});
const task = { instruction: "Reach the goal G without falling into a hole." };

function step(index: number, text: string, terminated = false): StepRecord {
  return {
    index,
    observation: { text },
    action: { type: "move", direction: "down" },
    raw: "",
    reward: 0,
    terminated,
    truncated: false,
    info: {},
    timeMs: 0,
  } as StepRecord;
}

function trajectory(id: string, final: string, success: boolean): Trajectory {
  return {
    schemaVersion: SCHEMA_VERSION,
    id,
    runId: "r",
    taskId: "4x4",
    episodeIndex: 0,
    seed: 0,
    policy: "random",
    status: "complete",
    steps: [step(0, "S...\n.H.."), step(1, "....\nSH..", true)],
    finalObservation: { text: final },
    outcome: { reward: success ? 1 : 0, success, reason: "", metrics: {} },
    startedAtMs: 0,
    meta: {},
  } as Trajectory;
}

async function judgeWith(t: Trajectory, replies: Record<number, string | Array<Record<string, unknown>>>) {
  const server = await startTestReplayServer({
    fixtures: judgeFixtures([{ task, trajectory: t, replies: replies as never }]),
  });
  const client = createChatClient(
    parseLlmConfig({ baseUrl: server.baseUrl, model: JUDGE_MODEL, maxRetries: 0 }),
    createRuntime({ seed: "j" }),
  );
  return judgeTrajectory({ client }, task, t, options);
}

describe("agreement: accuracy and Cohen's κ (hand-computed)", () => {
  it("perfect, chance, inverse, a worked example and the degenerate one-class cases", () => {
    expect(agreementOf({ tp: 5, fn: 0, fp: 0, tn: 5 })).toMatchObject({ n: 10, accuracy: 1, kappa: 1 });
    // p_o = 0.5, p_e = (4·4 + 4·4)/64 = 0.5 → κ = 0.
    expect(agreementOf({ tp: 2, fn: 2, fp: 2, tn: 2 })).toMatchObject({ accuracy: 0.5, kappa: 0 });
    // p_o = 0, p_e = 0.5 → κ = −1.
    expect(agreementOf({ tp: 0, fn: 5, fp: 5, tn: 0 })).toMatchObject({ accuracy: 0, kappa: -1 });
    // p_o = 35/50 = 0.7, p_e = (25·30 + 25·20)/2500 = 0.5 → κ = 0.4.
    expect(agreementOf({ tp: 20, fn: 5, fp: 10, tn: 15 }).kappa).toBeCloseTo(0.4, 12);
    // Both sides one and the same class: p_e = 1, κ undefined (null, with the reason), accuracy 1.
    const one = agreementOf({ tp: 0, fn: 0, fp: 0, tn: 6 });
    expect(one).toMatchObject({ accuracy: 1, kappa: null });
    expect(one.kappaUndefined).toMatch(/one and the same class/);
    // Only the verifier single-class: p_o = p_e = 4/6 → κ = 0.
    expect(agreementOf({ tp: 0, fn: 0, fp: 2, tn: 4 }).kappa).toBeCloseTo(0, 12);
    expect(agreementOf({ tp: 0, fn: 0, fp: 0, tn: 0 })).toMatchObject({ n: 0, accuracy: null, kappa: null });
    expect(
      confusionOf([
        { verifier: true, judge: true },
        { verifier: true, judge: false },
        { verifier: false, judge: true },
        { verifier: false, judge: false },
        { verifier: false, judge: false },
      ]),
    ).toEqual({ tp: 1, fn: 1, fp: 1, tn: 2 });
  });
});

describe("judge replies and prompt", () => {
  it("reads the last {success, reason} object, in a fence or in prose; anything else is an error", () => {
    expect(parseJudgeReply('{"success": true, "reason": "at G"}')).toEqual({
      ok: true,
      verdict: { success: true, reason: "at G" },
    });
    expect(parseJudgeReply('Thinking...\n```json\n{"success": false, "reason": "hole"}\n```')).toMatchObject({
      verdict: { success: false },
    });
    expect(parseJudgeReply('{"success": "yes", "reason": "x"}')).toMatchObject({ ok: false });
    expect(parseJudgeReply("The agent made it.")).toEqual({
      ok: false,
      error: "no JSON object in the reply",
    });
    expect(parseJudgeReply('{"success": true, "rea')).toEqual({
      ok: false,
      error: "the JSON object is cut off",
    });
  });

  it("bounds the rendering: first step and the last ones, clipped observations, no rewards", () => {
    const long = Array.from({ length: 40 }, (_, i) => step(i, `obs ${i} ${"x".repeat(900)}`));
    const text = judgeUserMessage(task, { steps: long, finalObservation: { text: "end" } }, options);
    expect(text).toContain("Steps (40 in all):");
    expect(text).toContain("Step 1\n");
    expect(text).toContain("[16 steps elided]");
    expect(text).not.toContain("Step 2\n");
    expect(text).toContain("Step 40\n");
    expect(text).not.toMatch(/reward/i);
    expect(clipText("y".repeat(1000), 600).length).toBeLessThanOrEqual(600);
    expect(text.length).toBeLessThan(24 * 700 + 2000);
  });
});

describe("judgeTrajectory: two evaluations, a third on disagreement, typed failures (recorded replies)", () => {
  it("agreeing evaluations decide; every call is recorded", async () => {
    const r = await judgeWith(trajectory("a", "at G", true), { 0: verdict(true), 2: verdict(true) });
    expect(r.final).toEqual({ success: true, reason: "reached the goal", method: "agree" });
    expect(r.calls.map((c) => [c.evaluation, c.attempt, c.seed])).toEqual([
      [0, 0, 0],
      [1, 0, 2],
    ]);
    expect(r.verifier).toEqual({ success: true });
  });

  it("a disagreement is decided by a third evaluation", async () => {
    const r = await judgeWith(trajectory("b", "in a hole", false), {
      0: verdict(true),
      2: verdict(false),
      4: verdict(false, "fell in H"),
    });
    expect(r.final).toEqual({ success: false, reason: "fell in H", method: "tiebreak" });
    expect(r.calls).toHaveLength(3);
  });

  it("an unparsable reply is retried once with the next seed; twice unparsable fails typed, not false", async () => {
    const retried = await judgeWith(trajectory("c", "at G", true), {
      0: "The agent reached the goal.",
      1: verdict(true),
      2: verdict(true),
    });
    expect(retried.final?.method).toBe("agree");
    expect(retried.calls[0]).toMatchObject({
      attempt: 0,
      seed: 0,
      parseError: "no JSON object in the reply",
    });
    expect(retried.calls[0]?.raw).toBe("The agent reached the goal.");
    const failed = await judgeWith(trajectory("d", "at G", true), {
      0: "yes",
      1: "definitely yes",
      2: verdict(true),
    });
    expect(failed.final).toBeNull();
    expect(failed.failure).toMatchObject({ kind: "unparsable", code: "judge.unparsable" });
    expect(failed.failure?.message).toMatch(/trajectory d.*Fix:/);
  });

  it("a provider failure fails the judgment (kind provider), with the calls made so far", async () => {
    const r = await judgeWith(trajectory("e", "at G", true), {
      0: verdict(true),
      2: [{ status: 500, error: "server down" }],
    });
    expect(r.final).toBeNull();
    expect(r.failure?.kind).toBe("provider");
    expect(r.calls).toHaveLength(1);
  });
});
