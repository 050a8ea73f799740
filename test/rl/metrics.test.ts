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

it("metrics per group and over all kept members: success rate, length, WM calls, reward parts", () => {
  const stats = {
    c: 0,
    n: 0,
    p: 0,
    length: { reference: 0, maximum: 0, budget: 0 },
    wm: { reference: 0, maximum: 0, budget: 0 },
    weights: { alpha: 1, beta: 0.5, gamma: 0.1 },
  };
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
