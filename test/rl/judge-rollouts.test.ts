import { describe, expect, it } from "vitest";
import { createRuntime, type Trajectory } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { parseLlmConfig } from "../../src/llm/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  JudgeOptionsSchema,
  judgeRolloutRun,
  judgeSummaryOf,
  judgeUserMessage,
  playRolloutGroups,
  RolloutGroupOptionsSchema,
  readJudgment,
  scoreRolloutGroups,
} from "../../src/rl/index.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { startTestReplayServer } from "../llm/helpers.ts";
import { JUDGE_MODEL, judgeFixtures, verdict } from "./judge-fixtures.ts";

const judgeOptions = JudgeOptionsSchema.parse({});

describe("rl rollouts with R_success from the judge (real FrozenLake groups, recorded judge replies)", () => {
  it("scores the judged verdict, keeps the verifier's beside it, and excludes a member whose judge failed", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const store = createMemoryStore();
    const runtime = createRuntime({ seed: "jr" });
    const runId = "rl-judge";
    store.createRun({ id: runId, kind: "rl", seed: "jr", config: {}, codeVersion: "test", createdAtMs: 0 });
    const tasks = [env.suite.get("4x4")];
    for (const t of tasks) store.putTask(runId, t);
    const options = RolloutGroupOptionsSchema.parse({ group: 8, tMax: 8 });
    await playRolloutGroups(
      { env, policy: createRandomPolicy(), runtime, store },
      { runId, tasks, seed: "jr", temperature: 1, options },
    );
    await env.close();
    const trajectories = [...store.iterateTrajectories(runId)];
    // One behaviour per distinct judge request: invert the verifier, fail at the provider, or agree.
    const task = tasks[0]!;
    const requestOf = (t: Trajectory) => judgeUserMessage(task, t, judgeOptions);
    const distinct = [...new Set(trajectories.map(requestOf))];
    expect(distinct.length).toBeGreaterThanOrEqual(3);
    const behaviour = (t: Trajectory) =>
      (["invert", "fail", "agree"] as const)[distinct.indexOf(requestOf(t)) % 3];
    const server = await startTestReplayServer({
      fixtures: judgeFixtures(
        trajectories.map((t) => {
          const v = t.outcome?.success === true;
          const b = behaviour(t);
          const replies =
            b === "fail"
              ? { 0: [{ status: 503, error: "judge down" }], 2: [{ status: 503, error: "judge down" }] }
              : { 0: verdict(b === "invert" ? !v : v), 2: verdict(b === "invert" ? !v : v) };
          return { task, trajectory: t, replies };
        }),
      ),
    });
    const llm = parseLlmConfig({ baseUrl: server.baseUrl, model: JUDGE_MODEL, maxRetries: 0 });
    const judged = await judgeRolloutRun(store, runId, { llm, options: judgeOptions }, runtime);
    const failing = trajectories.filter((t) => behaviour(t) === "fail").map((t) => t.id);
    expect(judged.summary.failed).toBe(failing.length);
    expect(judged.summary.judged).toBe(trajectories.length - failing.length);
    expect(judged.error).toBeUndefined();

    const report = scoreRolloutGroups(trajectories, options, judged.success);
    const group = report.groups[0]!;
    // A judge failure is excluded like an infrastructure failure: listed, never scored 0.
    expect(group.infraFailed).toEqual(failing);
    expect(group.members.map((m) => m.trajectoryId)).not.toContain(failing[0]);
    for (const m of group.members) {
      const t = trajectories.find((x) => x.id === m.trajectoryId)!;
      expect(m.verifierSuccess).toBe(t.outcome?.success === true);
      expect(m.success).toBe(behaviour(t) === "invert" ? !m.verifierSuccess : m.verifierSuccess);
      expect(m.parts.success).toBe(m.success ? 1 : 0);
    }
    // Without the judge nothing changes: the verifier decides, no verifierSuccess field.
    const plain = scoreRolloutGroups(trajectories, options);
    expect(plain.groups[0]?.members).toHaveLength(trajectories.length);
    expect(plain.groups[0]?.members[0]?.verifierSuccess).toBeUndefined();

    // Every judgment is stored: the summary's refs point at artefacts with each call's raw text.
    const summary = judgeSummaryOf({ judge: judged.summary });
    expect(summary?.judgments).toHaveLength(trajectories.length);
    const ref = summary!.judgments.find((j) => j.method === "agree")!;
    const record = readJudgment(store, ref)!;
    expect(record.calls.map((c) => c.raw)).toHaveLength(2);
    expect(record.final?.success).toBe(ref.success);
    const failedRef = summary!.judgments.find((j) => j.method === "failed")!;
    expect(readJudgment(store, failedRef)?.failure?.kind).toBe("provider");
  });
});
