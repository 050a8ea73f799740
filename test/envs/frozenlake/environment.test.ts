import { describe, expect, it } from "vitest";
import { type Action, isRehearsalError } from "../../../src/core/index.ts";
import {
  createFrozenLakeEnvironment,
  createFrozenLakeSuite,
  type FrozenLakeConfigInput,
  mapOfTask,
  parseFrozenLakeConfig,
  shortestSafePath,
} from "../../../src/envs/frozenlake/index.ts";

const SMALL_SUITE = { randomMaps: { count: 6 } };
const move = (direction: "left" | "down" | "right" | "up"): Action => ({ type: "move", direction });

async function userErrorCode(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (e) {
    if (isRehearsalError(e) && e.category === "user") return e.code;
    throw e;
  }
  return undefined;
}

describe("frozenlake config", () => {
  it("resolves the slip model", () => {
    expect(parseFrozenLakeConfig().dynamics).toEqual({ intended: 1 / 3, left: 1 / 3, right: 1 / 3 });
    expect(parseFrozenLakeConfig({ slippery: false }).dynamics).toEqual({ intended: 1, left: 0, right: 0 });
    const tweak = parseFrozenLakeConfig({ perpendicular: { left: 0, right: 2 / 3 } }).dynamics;
    expect(tweak.intended).toBeCloseTo(1 / 3, 12);
    expect(tweak.left).toBe(0);
    expect(tweak.right).toBeCloseTo(2 / 3, 12);
    const ratio = parseFrozenLakeConfig({ successRate: 1 / 3, slipRatio: [0, 1] }).dynamics;
    expect(ratio.right).toBeCloseTo(2 / 3, 12);
    expect(ratio.left).toBe(0);
    const skew = parseFrozenLakeConfig({ successRate: 0.5, slipRatio: [1, 3] }).dynamics;
    expect(skew).toEqual({ intended: 0.5, left: 0.125, right: 0.375 });
    expect(parseFrozenLakeConfig().horizon).toBe(100); // Gymnasium's FrozenLake-v1 limit
  });

  it("bad configs are user errors", async () => {
    const bad: unknown[] = [
      { successRate: 1.5 },
      { slipRatio: [-1, 1] },
      { slipRatio: [0, 0] },
      { perpendicular: { left: 0.5, right: 0.6 } },
      { perpendicular: { left: 0.1, right: 0.1 }, slipRatio: [1, 1] },
      { perpendicular: { left: 0.1, right: 0.1 }, successRate: 0.5 },
      { slippery: false, successRate: 0.5 },
      { horizon: 0 },
      { horizon: 2.5 },
      { unknownKey: true },
      { suite: { randomMaps: { size: 1 } } },
    ];
    for (const config of bad) {
      expect(await userErrorCode(() => createFrozenLakeEnvironment(config as FrozenLakeConfigInput))).toBe(
        "frozenlake.bad_config",
      );
    }
  });
});

describe("frozenlake environment", () => {
  it("renders the initial observation", async () => {
    const env = createFrozenLakeEnvironment({ suite: SMALL_SUITE });
    const obs = await env.reset({ taskId: "4x4", seed: 0 });
    expect(obs.text).toBe("P___\n_O_O\n___O\nO__G\nPosition (row, col): (0, 0)");
    expect(obs.data).toEqual({ row: 0, col: 0, size: 4, mapId: "4x4" });
    expect(obs.legalActions).toEqual([move("left"), move("down"), move("right"), move("up")]);
    expect(obs.stateKey).toMatch(/^frozenlake:4x4#[0-9a-f]{16}:\(0,0\)$/);
    expect(obs.instruction).toContain("goal");
    expect(obs.error).toBeUndefined();
    const plain = createFrozenLakeEnvironment({ showCoordinates: false, suite: SMALL_SUITE });
    expect((await plain.reset({ taskId: "4x4", seed: 0 })).text).toBe("P___\n_O_O\n___O\nO__G");
  });

  it("non-slippery: moves go where intended, walls keep the position, the goal ends with reward 1", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    await env.reset({ taskId: "4x4", seed: 3 });
    const wall = await env.step(move("left"));
    expect(wall.observation.data).toMatchObject({ row: 0, col: 0 });
    expect(wall.info).toMatchObject({ intended: "left", actual: "left", slipped: false });
    const path = ["right", "right", "down", "down", "down", "right"] as const;
    const rewards: number[] = [];
    let last = wall;
    for (const d of path) {
      last = await env.step(move(d));
      rewards.push(last.reward);
    }
    expect(rewards).toEqual([0, 0, 0, 0, 0, 1]);
    expect(last.terminated).toBe(true);
    expect(last.truncated).toBe(false);
    expect(last.observation.text).toBe(
      "____\n_O_O\n___O\nO__P\nPosition (row, col): (3, 3)\nYou reached the goal.",
    );
    expect(await env.evaluate()).toMatchObject({ reward: 1, success: true });
    const after = await env.step(move("left"));
    expect(after.observation.error?.code).toBe("episode_ended");
    expect(after).toMatchObject({ reward: 0, terminated: true });
    expect(after.observation.data).toMatchObject({ row: 3, col: 3 });
  });

  it("a hole terminates with reward 0 and reports hole probabilities in info", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    await env.reset({ taskId: "4x4", seed: 0 });
    await env.step(move("down"));
    const r = await env.step(move("right"));
    expect(r).toMatchObject({ reward: 0, terminated: true, truncated: false });
    expect(r.info.holeProbabilities).toEqual({ left: 0, down: 0, right: 1, up: 0 });
    expect(r.info.from).toEqual({ row: 1, col: 0 });
    expect(r.info.goodMove).toBe(false);
    expect(r.observation.text).toContain("You fell into a hole.");
    expect(await env.evaluate()).toMatchObject({ reward: 0, success: false });
    expect(await env.oracleAction()).toBeNull();
  });

  it("truncates at the horizon; invalid actions count and change nothing", async () => {
    const env = createFrozenLakeEnvironment({ horizon: 3, suite: SMALL_SUITE });
    const start = await env.reset({ taskId: "8x8", seed: 5 });
    const printBefore = await env.fingerprint();
    const bad = await env.step({ type: "click", x: 3, y: 4 });
    expect(bad.observation.error?.code).toBe("invalid_action");
    expect(bad.observation.error?.message).toMatch(/left.*down.*right.*up.*got type "click"/);
    expect(bad.observation.text).toBe(start.text);
    expect(bad).toMatchObject({ reward: 0, terminated: false, truncated: false });
    expect(await env.fingerprint()).not.toBe(printBefore);

    // The invalid step drew no randomness: the next move slips exactly as it would have from reset.
    const ref = createFrozenLakeEnvironment({ suite: SMALL_SUITE });
    await ref.reset({ taskId: "8x8", seed: 5 });
    const expected = await ref.step(move("down"));
    const got = await env.step(move("down"));
    expect(got.info.actual).toBe(expected.info.actual);
    expect(got.observation.error).toBeUndefined();

    const third = await env.step(move("right"));
    expect(third.truncated).toBe(true);
    expect(third.terminated).toBe(false);
    expect(third.observation.text).toContain("Out of steps.");
    expect((await env.evaluate()).reason).toContain("horizon of 3");
    expect((await env.step(move("right"))).observation.error?.code).toBe("episode_ended");
  });

  it("the oracle reaches the goal on every non-slippery map along a shortest path", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false, horizon: 200 });
    expect(env.suite.list()).toHaveLength(102);
    for (const task of env.suite.list()) {
      await env.reset({ taskId: task.id, seed: 0 });
      let steps = 0;
      for (let action = await env.oracleAction(); action; action = await env.oracleAction()) {
        const r = await env.step(action);
        steps++;
        expect(r.observation.error).toBeUndefined();
      }
      const result = await env.evaluate();
      expect(result.success, task.id).toBe(true);
      const map = mapOfTask(task);
      expect(steps).toBe(shortestSafePath(map, map.start)?.length);
    }
    await env.reset({ taskId: "4x4", seed: 0 });
  });

  it("snapshots restore exactly, also in another instance", async () => {
    const a = createFrozenLakeEnvironment({ suite: SMALL_SUITE, horizon: 100 });
    await a.reset({ taskId: "random-5-1", seed: 11 });
    await a.step(move("right"));
    const snap = JSON.parse(JSON.stringify(await a.snapshot()));
    const moves = ["down", "right", "down", "left", "up", "right"] as const;
    const rest = [];
    for (const d of moves) rest.push(await a.step(move(d)));
    const b = createFrozenLakeEnvironment({ suite: SMALL_SUITE, horizon: 100 });
    await b.restore(snap);
    for (const [i, d] of moves.entries()) {
      const r = await b.step(move(d));
      expect(r).toEqual(rest[i]);
    }
    expect(await b.fingerprint()).toBe(await a.fingerprint());
    expect(await userErrorCode(() => b.restore({ ...snap, family: "chess" }))).toBe(
      "frozenlake.bad_snapshot",
    );
    expect(await userErrorCode(() => b.restore({ ...snap, taskId: "4x4" }))).toBe("frozenlake.bad_snapshot");
    expect(await userErrorCode(() => b.restore({ ...snap, state: { row: 1 } }))).toBe(
      "frozenlake.bad_snapshot",
    );
  });

  it("plays tasks of a suite passed in, and rejects misuse with user errors", async () => {
    const suite = createFrozenLakeSuite({
      standard: [],
      randomMaps: { count: 0 },
      maps: [{ id: "tiny", rows: ["SG", "FF"] }],
    });
    const env = createFrozenLakeEnvironment({ slippery: false }, { suite });
    expect(await userErrorCode(() => env.step(move("right")))).toBe("frozenlake.not_reset");
    await env.reset({ taskId: "tiny", seed: 0 });
    expect(await env.oracleAction()).toEqual(move("right"));
    expect((await env.step(move("right"))).reward).toBe(1);
    expect(await userErrorCode(() => env.reset({ taskId: "4x4", seed: 0 }))).toBe("task.unknown");
    expect(await userErrorCode(() => env.reset({ taskId: "tiny", seed: -1 }))).toBe("frozenlake.bad_reset");
    await env.close();
    expect(await userErrorCode(() => env.reset({ taskId: "tiny", seed: 0 }))).toBe("frozenlake.closed");
  });
});
