import { describe, expect, it } from "vitest";
import {
  type Action,
  createRandom,
  createRuntime,
  type Environment,
  type PolicyContext,
} from "../../src/core/index.ts";
import { createChessEnvironment } from "../../src/envs/chess/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import {
  countWmCalls,
  groupSeed,
  playRolloutGroups,
  RolloutGroupOptionsSchema,
  scoreRolloutGroups,
  snapshotWorldModel,
  trajectoryWmCalls,
  withWmCalls,
} from "../../src/rl/index.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import {
  answerOf,
  continued,
  entry,
  fingerprint,
  firstMessages,
  move,
  replayLlm,
  TEMPERATURE,
} from "./call-wm-helpers.ts";

const json = (a: Action) => JSON.stringify(a);

/**
 * On `env` (with calls) and its `twin` (the same reset, no calls): a proposal that imagines `imagined`
 * then commits `commit`. The committed state is untouched by the calls, and the committed step is the
 * one the twin takes without them.
 */
async function imagineThenCommit(
  env: Environment,
  twin: Environment,
  context: PolicyContext,
  imagined: [Action, Action],
  commit: Action,
) {
  const wm = snapshotWorldModel(env);
  const m0 = firstMessages(context, 5);
  const k1 = `<call_wm>${json(imagined[0])}</call_wm>`;
  const k2 = `<call_wm>${json(imagined[1])}</call_wm>`;
  const m1 = continued(m0, k1, await answerOf(wm, context, imagined[0]));
  const m2 = continued(m1, k2, await answerOf(wm, context, imagined[1]));
  const setup = await replayLlm([
    entry(m0, 1, [`<call_wm>${json(imagined[0])}`]),
    entry(m1, 1, [`<call_wm>${json(imagined[1])}`]),
    entry(m2, 1, [`Action: ${json(commit)}`]),
  ]);
  const before = await fingerprint(env);
  expect(await fingerprint(twin)).toBe(before);
  const proposal = await withWmCalls(setup.llm, wm, { cap: 5 }).propose(context, {
    n: 1,
    temperature: TEMPERATURE,
    random: createRandom("call-wm-state"),
  });
  expect(await fingerprint(env)).toBe(before);
  const [c] = proposal.candidates;
  expect(countWmCalls(c?.raw ?? "")).toBe(2);
  expect(c?.action).toEqual(commit);
  const committed = await env.step(commit);
  const plain = await twin.step(commit);
  expect(committed).toEqual(plain);
  expect(await fingerprint(env)).toBe(await fingerprint(twin));
}

describe("<call_wm> calls never change the committed state (perfect world model, fingerprints)", () => {
  it("FrozenLake on slippery ice: the committed step (random draw included) is the one without calls", async () => {
    const [env, twin] = [0, 1].map(() => createFrozenLakeEnvironment({ slippery: true }));
    if (!env || !twin) throw new Error("unreachable");
    const task = env.suite.get("4x4");
    const observation = await env.reset({ taskId: task.id, seed: 11 });
    await twin.reset({ taskId: task.id, seed: 11 });
    const context = { task, observation, history: [], stepIndex: 0 };
    await imagineThenCommit(env, twin, context, [move("down"), move("right")], move("down"));
    await Promise.all([env.close(), twin.close()]);
  });

  it("chess against a random opponent: the opponent's reply is the one without calls", async () => {
    const [env, twin] = [0, 1].map(() => createChessEnvironment({ opponent: "random" }));
    if (!env || !twin) throw new Error("unreachable");
    const task = env.suite.get("LQZKc");
    const observation = await env.reset({ taskId: task.id, seed: 3 });
    await twin.reset({ taskId: task.id, seed: 3 });
    const legal = observation.legalActions ?? [];
    expect(legal.length).toBeGreaterThan(2);
    const context = { task, observation, history: [], stepIndex: 0 };
    await imagineThenCommit(env, twin, context, [legal[1] as Action, legal[2] as Action], legal[1] as Action);
    await Promise.all([env.close(), twin.close()]);
  });
});

describe("WM-call counts per episode", () => {
  it("two episodes of one run: each trajectory's count is its own (the counter starts at 0 every episode)", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const task = env.suite.get("4x4");
    const seed = "call-wm-episodes";
    // The state each member starts from (the rollout resets with T_max as the horizon).
    const observation = await env.reset({ taskId: task.id, seed: groupSeed(seed, task.id), maxSteps: 1 });
    const context = { task, observation, history: [], stepIndex: 0 };
    const wm = snapshotWorldModel(env);
    const [DOWN, RIGHT] = [json(move("down")), json(move("right"))];
    // Cap 2: a counter that outlived its step (the reference defect) would refuse the second episode's call.
    const cap = 2;
    const m0 = firstMessages(context, cap);
    const afterDown = continued(m0, `<call_wm>${DOWN}</call_wm>`, await answerOf(wm, context, move("down")));
    const afterBoth = continued(
      afterDown,
      `<call_wm>${RIGHT}</call_wm>`,
      await answerOf(wm, context, move("right")),
    );
    const afterRight = continued(
      m0,
      `<call_wm>${RIGHT}</call_wm>`,
      await answerOf(wm, context, move("right")),
    );
    // The first episode to ask gets two calls (down, right), the second one call (right).
    const setup = await replayLlm([
      entry(m0, 1, [[`<call_wm>${DOWN}`], [`<call_wm>${RIGHT}`]]),
      entry(afterDown, 1, [`<call_wm>${RIGHT}`]),
      entry(afterBoth, 1, [`Action: ${RIGHT}`]),
      entry(afterRight, 1, [`Action: ${RIGHT}`]),
    ]);
    const store = createMemoryStore();
    const runId = "rl-call-wm";
    store.createRun({ id: runId, kind: "rl", seed, config: {}, codeVersion: "test", createdAtMs: 0 });
    const options = RolloutGroupOptionsSchema.parse({ group: 2, tMax: 1 });
    await playRolloutGroups(
      { env, policy: withWmCalls(setup.llm, wm, { cap }), runtime: createRuntime({ seed }), store },
      { runId, tasks: [task], seed, temperature: TEMPERATURE, options },
    );
    const trajectories = [...store.iterateTrajectories(runId)];
    expect(trajectories).toHaveLength(2);
    const counts = trajectories.map((t) => trajectoryWmCalls(t));
    for (const [i, t] of trajectories.entries())
      expect(counts[i]).toBe(t.steps.reduce((n, s) => n + countWmCalls(s.raw), 0));
    expect([...counts].sort()).toEqual([1, 2]);
    const report = scoreRolloutGroups(trajectories, options);
    expect(report.groups[0]?.members.map((m) => m.wmCalls).sort()).toEqual([1, 2]);
    await env.close();
  });
});
