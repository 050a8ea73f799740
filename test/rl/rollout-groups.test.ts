import { describe, expect, it } from "vitest";
import {
  createRuntime,
  type Environment,
  EnvironmentError,
  SCHEMA_VERSION,
  type Trajectory,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  groupSeed,
  playRolloutGroups,
  RolloutGroupOptionsSchema,
  scoreRolloutGroups,
  trajectoryWmCalls,
} from "../../src/rl/index.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";

const options = (o: Record<string, unknown> = {}) => RolloutGroupOptionsSchema.parse(o);

/** FrozenLake whose resets `failing` (1-based, counted over the whole batch) fail in the environment. */
function failingResets(env: Environment, failing: ReadonlySet<number>): Environment {
  let resets = 0;
  return new Proxy(env, {
    get(target, key, receiver) {
      if (key === "reset")
        return (spec: Parameters<Environment["reset"]>[0]) => {
          resets += 1;
          if (failing.has(resets)) throw new EnvironmentError("env.test_down", `reset ${resets} failed`);
          return target.reset(spec);
        };
      const v = Reflect.get(target, key, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function play(env: Environment, tasks: string[], o: Record<string, unknown>) {
  const store = createMemoryStore();
  const runtime = createRuntime({ seed: "g" });
  const runId = "rl-test";
  store.createRun({ id: runId, kind: "rl", seed: "g", config: {}, codeVersion: "test", createdAtMs: 0 });
  const opts = options(o);
  const results = await playRolloutGroups(
    { env, policy: createRandomPolicy(), runtime, store },
    { runId, tasks: tasks.map((t) => env.suite.get(t)), seed: "g", temperature: 1, options: opts },
  );
  const trajectories = [...store.iterateTrajectories(runId)];
  await env.close();
  return { results, trajectories, report: scoreRolloutGroups(trajectories, opts) };
}

describe("rollout groups", () => {
  it("plays G members per task from one seed (one initial state), each with its group id", async () => {
    const { trajectories, report } = await play(
      createFrozenLakeEnvironment({ slippery: true }),
      ["4x4", "8x8"],
      {
        group: 5,
        tMax: 15,
      },
    );
    expect(trajectories).toHaveLength(10);
    for (const task of ["4x4", "8x8"]) {
      const members = trajectories.filter((t) => t.taskId === task);
      expect(new Set(members.map((t) => t.seed))).toEqual(new Set([groupSeed("g", task)]));
      expect(new Set(members.map((t) => t.steps[0]?.observation.text)).size).toBe(1);
      expect(members.map((t) => (t.meta.rl as { member: number }).member)).toEqual([0, 1, 2, 3, 4]);
      expect(members.every((t) => t.steps.length <= 15)).toBe(true);
    }
    // Members of a group draw their own policy streams: they do not all walk the same path.
    const paths = trajectories
      .filter((t) => t.taskId === "8x8")
      .map((t) => JSON.stringify(t.steps.map((s) => s.action)));
    expect(new Set(paths).size).toBeGreaterThan(1);
    expect(report.groups.map((g) => [g.groupId, g.members.length])).toEqual([
      ["rl-test:4x4", 5],
      ["rl-test:8x8", 5],
    ]);
    for (const g of report.groups) {
      const sum = g.members.reduce((a, m) => a + m.advantage, 0);
      expect(Math.abs(sum)).toBeLessThan(1e-9); // group-normalised
      expect(g.stats.length.maximum).toBe(15); // L_max = T_max
    }
  });

  it("excludes infrastructure failures (never scored 0) and drops a group below the minimum", async () => {
    // Resets 2, 3 fail (4x4 keeps 2 of 4); resets 5, 6, 7 fail (8x8 keeps 1 of 4 < minimum 2).
    const env = failingResets(createFrozenLakeEnvironment({ slippery: false }), new Set([2, 3, 5, 6, 7]));
    const { report } = await play(env, ["4x4", "8x8"], { group: 4, minGroup: 2 });
    expect(report.infraFailed).toBe(5);
    expect(report.groups).toHaveLength(1);
    const [kept] = report.groups;
    expect(kept?.taskId).toBe("4x4");
    expect(kept?.members.map((m) => m.member)).toEqual([0, 3]);
    expect(kept?.infraFailed).toHaveLength(2);
    expect(kept?.stats.n).toBe(2);
    expect(report.dropped).toEqual([
      expect.objectContaining({ taskId: "8x8", scorable: 1, reason: "1 scorable member < minimum 2" }),
    ]);
    expect(report.dropped[0]?.infraFailed).toHaveLength(3);
  });
});

function trajectory(id: string, wmCalls: number[], success: boolean, member: number): Trajectory {
  return {
    schemaVersion: SCHEMA_VERSION,
    id,
    runId: "r",
    taskId: "t",
    episodeIndex: member,
    seed: 7,
    policy: "p",
    status: "complete",
    steps: wmCalls.map((n, index) => ({
      index,
      observation: { text: "o" },
      action: { type: "done" },
      raw: "",
      reward: 0,
      terminated: false,
      truncated: false,
      info: { wmCalls: n },
      timeMs: 0,
    })),
    outcome: { success, reward: success ? 1 : 0, reason: "", metrics: {} },
    startedAtMs: 0,
    meta: { rl: { groupId: "r:t", member, groupSeed: 7 } },
  };
}

describe("WM-call counter", () => {
  it("is each trajectory's own: an episode after one with calls starts from 0", () => {
    const first = trajectory("a", [2, 1], true, 0);
    const second = trajectory("b", [0, 0, 0], false, 1);
    expect(trajectoryWmCalls(first)).toBe(3);
    expect(trajectoryWmCalls(second)).toBe(0);
    const report = scoreRolloutGroups([first, second], options({ tMax: 5 }));
    expect(report.groups[0]?.members.map((m) => m.wmCalls)).toEqual([3, 0]);
    // N_ref 3 (the success), N_max 3: budget 3, so the success is on budget (R_WM 0.5).
    expect(report.groups[0]?.members[0]?.parts.wm).toBe(0.5);
  });

  it("ignores non-numeric and negative counts", () => {
    const t = trajectory("c", [1], true, 0);
    t.steps.push({ ...(t.steps[0] as Trajectory["steps"][number]), index: 1, info: { wmCalls: "5" } });
    t.steps.push({ ...(t.steps[0] as Trajectory["steps"][number]), index: 2, info: { wmCalls: -2 } });
    expect(trajectoryWmCalls(t)).toBe(1);
  });
});
