import { expect, it } from "vitest";
import {
  memberMetrics,
  RolloutGroupOptionsSchema,
  type RolloutGroupsReport,
  rolloutMetrics,
} from "../../src/rl/index.ts";

const member = (success: boolean, length: number, wmCalls: number, reward: number) => ({
  trajectoryId: `t${length}`,
  member: 0,
  success,
  length,
  wmCalls,
  parts: { success: success ? 1 : 0, length: 0.5, wm: -0.1, lengthLambda: 0, wmLambda: 0 },
  reward,
  advantage: 0,
});

/** Group statistics the metrics do not read (the members carry what they count). */
const stats = {
  c: 0,
  n: 0,
  p: 0,
  length: { reference: 0, maximum: 0, budget: 0 },
  wm: { reference: 0, maximum: 0, budget: 0 },
  weights: { alpha: 1, beta: 0.5, gamma: 0.1 },
};

it("metrics per group and over all kept members: success rate, length, WM calls, reward parts", () => {
  const report: RolloutGroupsReport = {
    options: RolloutGroupOptionsSchema.parse({}),
    groups: [
      {
        groupId: "r:a",
        taskId: "a",
        groupSeed: 1,
        stats,
        members: [member(true, 4, 2, 1.2), member(false, 6, 0, -0.2)],
        infraFailed: [],
      },
      {
        groupId: "r:b",
        taskId: "b",
        groupSeed: 2,
        stats,
        members: [member(true, 2, 4, 1.4)],
        infraFailed: ["x"],
      },
    ],
    dropped: [],
    infraFailed: 1,
    unfinished: 0,
  };
  const m = rolloutMetrics(report);
  expect(m.perGroup[0]).toMatchObject({
    groupId: "r:a",
    trajectories: 2,
    successRate: 0.5,
    meanLength: 5,
    wmCallsPerTrajectory: 1,
  });
  expect(m.all.trajectories).toBe(3);
  expect(m.all.successRate).toBeCloseTo(2 / 3, 12);
  expect(m.all.wmCallsPerTrajectory).toBe(2);
  expect(m.all.meanReward).toBeCloseTo(0.8, 12);
  expect(m.all.meanParts.success).toBeCloseTo(2 / 3, 12);
  expect(m.all.meanParts.length).toBeCloseTo(0.5, 12);
  expect(m.all.meanParts.wm).toBeCloseTo(-0.1, 12);
  expect(memberMetrics([])).toMatchObject({ trajectories: 0, successRate: 0, meanReward: 0 });
});

it("splits the kept groups into the hard subset (oracle ≥ 5 steps), easy and unknown (no oracle length)", () => {
  const group = (taskId: string, members: ReturnType<typeof member>[]) => ({
    groupId: `r:${taskId}`,
    taskId,
    groupSeed: 1,
    stats,
    members,
    infraFailed: [],
  });
  const report: RolloutGroupsReport = {
    options: RolloutGroupOptionsSchema.parse({}),
    groups: [
      group("long", [member(true, 6, 1, 1), member(false, 9, 3, -0.2)]),
      group("five", [member(true, 5, 0, 1.2)]),
      group("short", [member(true, 2, 0, 1.5)]),
      group("no-oracle", [member(false, 15, 0, -0.2)]),
    ],
    dropped: [],
    infraFailed: 0,
    unfinished: 0,
  };
  const m = rolloutMetrics(report, { long: 8, five: 5, short: 2, "no-oracle": null });
  expect(m.hardMinSteps).toBe(5);
  expect(m.perGroup.map((g) => [g.taskId, g.oracleSteps, g.subset])).toEqual([
    ["long", 8, "hard"],
    ["five", 5, "hard"],
    ["short", 2, "easy"],
    ["no-oracle", null, "unknown"],
  ]);
  expect(m.subsets.hard).toMatchObject({ tasks: ["long", "five"], trajectories: 3 });
  expect(m.subsets.hard.successRate).toBeCloseTo(2 / 3, 12);
  expect(m.subsets.hard.wmCallsPerTrajectory).toBeCloseTo(4 / 3, 12);
  expect(m.subsets.easy).toMatchObject({ tasks: ["short"], trajectories: 1, successRate: 1 });
  expect(m.subsets.unknown).toMatchObject({ tasks: ["no-oracle"], trajectories: 1, successRate: 0 });
  // Without measured lengths every task is unknown, never easy.
  expect(rolloutMetrics(report).subsets.unknown.trajectories).toBe(5);
  expect(rolloutMetrics(report).subsets.easy.trajectories).toBe(0);
});
