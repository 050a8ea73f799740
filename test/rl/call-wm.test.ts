import { describe, expect, it } from "vitest";
import { createRandom, type PolicyContext } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { buildAgentMessages, parseAction, wmCallInstructions } from "../../src/llm/index.ts";
import { createLlmPolicy } from "../../src/policies/llm-policy.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  capReachedMessage,
  countWmCalls,
  formatWmError,
  malformedCallMessage,
  snapshotWorldModel,
  splitWmTranscript,
  withWmCalls,
  worldModelPolicy,
} from "../../src/rl/index.ts";
import {
  answerOf,
  continued,
  counting,
  entry,
  fingerprint,
  firstMessages,
  move,
  replayLlm,
  TEMPERATURE,
} from "./call-wm-helpers.ts";

async function lake() {
  const env = createFrozenLakeEnvironment({ slippery: false });
  const task = env.suite.get("4x4");
  const observation = await env.reset({ taskId: task.id, seed: 3 });
  const context: PolicyContext = { task, observation, history: [], stepIndex: 0 };
  const wm = counting(snapshotWorldModel(env));
  return { env, context, wm };
}

const propose = (n = 1) => ({ n, temperature: TEMPERATURE, random: createRandom("call-wm", n) });
const call = (json: string) => `<call_wm>${json}`;
const DOWN = '{"type":"move","direction":"down"}';
const RIGHT = '{"type":"move","direction":"right"}';

describe("<call_wm> in the llm policy's reasoning (recorded responses)", () => {
  it("answers two calls from the world model, then parses the final action; the transcript splits exactly", async () => {
    const { env, context, wm } = await lake();
    const cap = 5;
    const m0 = firstMessages(context, cap);
    const r1 = `Let me look down first.\n${call(DOWN)}`;
    // A server that ignores the stop sequence writes the close and an answer of its own: cut off.
    const r2 = `Now right.\n${call(RIGHT)}</call_wm>\n<wm_answer>made up</wm_answer> Action: {"type":"done"}`;
    const r3 = `Right is open.\nAction: ${RIGHT}`;
    const k1 = `Let me look down first.\n<call_wm>${DOWN}</call_wm>`;
    const k2 = `Now right.\n<call_wm>${RIGHT}</call_wm>`;
    const a1 = await answerOf(wm, context, move("down"));
    const a2 = await answerOf(wm, context, move("right"));
    const m1 = continued(m0, k1, a1);
    const m2 = continued(m1, k2, a2);
    const setup = await replayLlm([entry(m0, 1, [r1]), entry(m1, 1, [r2]), entry(m2, 1, [r3])]);
    const { server } = setup;
    const policy = withWmCalls(setup.llm, wm, { cap });
    const before = await fingerprint(env);
    wm.predictions.length = 0;
    const proposal = await policy.propose(context, propose());
    expect(await fingerprint(env)).toBe(before);
    const [c] = proposal.candidates;
    expect(c?.action).toEqual(move("right"));
    expect(c?.raw).toBe(`${k1}\n${a1}\n${k2}\n${a2}\n${r3}`);
    expect(countWmCalls(c?.raw ?? "")).toBe(2);
    expect(wm.predictions).toEqual([move("down"), move("right")]);
    const segments = splitWmTranscript(c?.raw ?? "");
    expect(segments).toEqual([
      { kind: "policy", text: `${k1}\n` },
      { kind: "wm_answer", text: a1 },
      { kind: "policy", text: `\n${k2}\n` },
      { kind: "wm_answer", text: a2 },
      { kind: "policy", text: `\n${r3}` },
    ]);
    expect(segments.map((s) => s.text).join("")).toBe(c?.raw);
    // Three completions, each with the stop sequence; the system message holds the WM instructions.
    const bodies = server.requests.map(
      (r) => r.body as { stop?: string[]; messages: Array<{ content: string }> },
    );
    expect(bodies).toHaveLength(3);
    for (const b of bodies) expect(b.stop).toEqual(["</call_wm>"]);
    expect(bodies[0]?.messages[0]?.content).toContain(wmCallInstructions(cap));
    expect(proposal.usage?.calls).toBe(3);
    expect(policy.name).toBe("call-wm(llm:call-wm-model)");
    await env.close();
  });

  it("answers a malformed call with an error and makes no prediction", async () => {
    const { env, context, wm } = await lake();
    const m0 = firstMessages(context, 5);
    const r1 = `${call("go down please")}`;
    const k1 = `<call_wm>go down please</call_wm>`;
    const why = parseAction("go down please");
    expect(why.ok).toBe(false);
    const a1 = formatWmError(malformedCallMessage(why.ok ? "" : why.error.message));
    const r2 = `Action: ${DOWN}`;
    const setup = await replayLlm([entry(m0, 1, [r1]), entry(continued(m0, k1, a1), 1, [r2])]);
    const proposal = await withWmCalls(setup.llm, wm, { cap: 5 }).propose(context, propose());
    const [c] = proposal.candidates;
    expect(c?.raw).toBe(`${k1}\n${a1}\n${r2}`);
    expect(c?.action).toEqual(move("down"));
    expect(countWmCalls(c?.raw ?? "")).toBe(1);
    expect(wm.predictions).toEqual([]);
    expect(a1).toContain("System (WM): error: the call is not one action");
    await env.close();
  });

  it("answers a call over the cap without a prediction; a sample that calls again ends without an action (n = 2)", async () => {
    const { env, context, wm } = await lake();
    const cap = 1;
    const m0 = firstMessages(context, cap);
    const k = (json: string) => `<call_wm>${json}</call_wm>`;
    const aDown = await answerOf(wm, context, move("down"));
    const aRight = await answerOf(wm, context, move("right"));
    const capped = formatWmError(capReachedMessage(cap));
    // Sample 0: down (answered), right (over the cap), then commits. Sample 1: right, down, up again.
    const s0m1 = continued(m0, `a ${k(DOWN)}`, aDown);
    const s0m2 = continued(s0m1, k(RIGHT), capped);
    const s1m1 = continued(m0, `b ${k(RIGHT)}`, aRight);
    const s1m2 = continued(s1m1, k(DOWN), capped);
    const UP = '{"type":"move","direction":"up"}';
    const setup = await replayLlm([
      entry(m0, 2, [`a ${call(DOWN)}`, `b ${call(RIGHT)}`]),
      entry(s0m1, 1, [call(RIGHT)]),
      entry(s0m2, 1, [`Action: ${DOWN}`]),
      entry(s1m1, 1, [call(DOWN)]),
      entry(s1m2, 1, [`still curious ${call(UP)}`]),
    ]);
    const { server } = setup;
    wm.predictions.length = 0;
    const before = await fingerprint(env);
    const proposal = await withWmCalls(setup.llm, wm, { cap }).propose(context, propose(2));
    expect(await fingerprint(env)).toBe(before);
    const [c0, c1] = proposal.candidates;
    expect(c0?.raw).toBe(`a ${k(DOWN)}\n${aDown}\n${k(RIGHT)}\n${capped}\nAction: ${DOWN}`);
    expect(c0?.action).toEqual(move("down"));
    expect(c1?.raw).toBe(
      `b ${k(RIGHT)}\n${aRight}\n${k(DOWN)}\n${capped}\nstill curious ${k(UP)}\n${capped}`,
    );
    expect(c1?.action).toBeNull();
    expect(c1?.parseError?.code).toBe("parse.empty");
    expect([countWmCalls(c0?.raw ?? ""), countWmCalls(c1?.raw ?? "")]).toEqual([2, 3]);
    // One prediction per sample (the answered call); five completions in all, none after the last call.
    expect(wm.predictions).toHaveLength(2);
    expect(server.requests).toHaveLength(5);
    expect(capped).toContain("WM-call cap of 1 per step reached; commit an action");
    await env.close();
  });

  it("passes a reply without calls through as today (one completion, the stop sequence sent)", async () => {
    const { env, context, wm } = await lake();
    const m0 = firstMessages(context, 5);
    const reply = `I go right.\nAction: ${RIGHT}`;
    const setup = await replayLlm([entry(m0, 1, [reply])]);
    const { server } = setup;
    const proposal = await withWmCalls(setup.llm, wm, { cap: 5 }).propose(context, propose());
    expect(proposal.candidates).toEqual([{ action: move("right"), raw: reply }]);
    expect(countWmCalls(reply)).toBe(0);
    expect(wm.predictions).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect((server.requests[0]?.body as { stop?: string[] } | undefined)?.stop).toEqual(["</call_wm>"]);
    await env.close();
  });

  it("gives each of n samples its own calls and answers, predictions one at a time", async () => {
    const { env, context, wm } = await lake();
    const m0 = firstMessages(context, 5);
    const aDown = await answerOf(wm, context, move("down"));
    const aRight = await answerOf(wm, context, move("right"));
    const k0 = `x <call_wm>${DOWN}</call_wm>`;
    const k1 = `y <call_wm>${RIGHT}</call_wm>`;
    const setup = await replayLlm([
      entry(m0, 3, [`x ${call(DOWN)}`, `y ${call(RIGHT)}`, `Action: ${DOWN}`]),
      entry(continued(m0, k0, aDown), 1, [`Action: ${DOWN}`]),
      entry(continued(m0, k1, aRight), 1, [`Action: ${RIGHT}`]),
    ]);
    wm.predictions.length = 0;
    const before = await fingerprint(env);
    // Without the one-at-a-time queue the two snapshot predictions interleave on the one environment:
    // the second steps from the first's imagined state, its answer is wrong (and its request unknown).
    const proposal = await withWmCalls(setup.llm, wm, { cap: 5 }).propose(context, propose(3));
    expect(await fingerprint(env)).toBe(before);
    expect(proposal.candidates.map((c) => c.raw)).toEqual([
      `${k0}\n${aDown}\nAction: ${DOWN}`,
      `${k1}\n${aRight}\nAction: ${RIGHT}`,
      `Action: ${DOWN}`,
    ]);
    expect(proposal.candidates.map((c) => c.action)).toEqual([move("down"), move("right"), move("down")]);
    expect(proposal.candidates.map((c) => countWmCalls(c.raw))).toEqual([1, 1, 0]);
    expect(wm.predictions).toHaveLength(2);
    expect(proposal.usage?.calls).toBe(3);
    await env.close();
  });

  it("sends stop sequences only when asked: a plain llm policy sends none; --wm routing by policy kind", async () => {
    const { env, context, wm } = await lake();
    const plainMessages = firstMessages(context, 5).slice(0, 1);
    const reply = `Action: ${RIGHT}`;
    const m0 = buildAgentMessages(context);
    expect(m0[0]?.content).not.toContain("<call_wm>");
    expect(plainMessages[0]?.content).toContain(wmCallInstructions(5));
    const setup = await replayLlm([entry(m0, 1, [reply])]);
    const { server } = setup;
    const plain = createLlmPolicy(setup.llm);
    expect((await plain.propose(context, propose())).candidates).toEqual([
      { action: move("right"), raw: reply },
    ]);
    await setup.llm.client.complete({ messages: m0, temperature: TEMPERATURE, stop: ["END"] });
    const stops = server.requests.map((r) => (r.body as { stop?: string[] }).stop);
    expect(stops).toEqual([undefined, ["END"]]);
    // rl rollouts --wm: an llm policy calls the model in its reasoning, any other gets wm-lookahead.
    expect(worldModelPolicy(plain, wm, { candidates: 4, cap: 3 }).name).toBe("call-wm(llm:call-wm-model)");
    expect(worldModelPolicy(createRandomPolicy(), wm, { candidates: 4, cap: 3 }).name).toBe(
      "wm-lookahead(random)",
    );
    await env.close();
  });
});
