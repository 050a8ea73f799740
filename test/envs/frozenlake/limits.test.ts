import { describe, expect, it } from "vitest";
import { type Action, type EnvironmentSnapshot, isRehearsalError } from "../../../src/core/index.ts";
import {
  createFrozenLakeEnvironment,
  DIRECTIONS,
  type EpisodeState,
  turnLeft,
  turnRight,
} from "../../../src/envs/frozenlake/index.ts";

const left: Action = { type: "move", direction: "left" };
const SMALL_SUITE = { randomMaps: { count: 0 } };

async function errorCode(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
  } catch (e) {
    if (isRehearsalError(e)) return e.code;
    throw e;
  }
  return undefined;
}

/** Steps "left" from the start (a wall on both standard maps: the player stays) until the episode ends. */
async function stepsUntilEnd(env: ReturnType<typeof createFrozenLakeEnvironment>): Promise<number> {
  for (let n = 1; n <= 10_000; n++) {
    const r = await env.step(left);
    if (r.terminated) throw new Error("walked into a hole");
    if (r.truncated) return n;
  }
  throw new Error("never truncated");
}

describe("frozenlake step limits", () => {
  it("truncates the standard maps at 100 steps by default, as Gymnasium's FrozenLake-v1", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    for (const taskId of ["4x4", "8x8"]) {
      await env.reset({ taskId, seed: 0 });
      expect(await stepsUntilEnd(env), taskId).toBe(100);
      expect((await env.evaluate()).reason).toContain("horizon of 100");
    }
  });

  it("a reset's maxSteps raises or lowers the limit, and snapshots keep it", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    await env.reset({ taskId: "8x8", seed: 0, maxSteps: 200 });
    expect(await stepsUntilEnd(env)).toBe(200);
    await env.reset({ taskId: "8x8", seed: 0, maxSteps: 7 });
    expect(await stepsUntilEnd(env)).toBe(7);

    await env.reset({ taskId: "4x4", seed: 0, maxSteps: 150 });
    for (let i = 0; i < 120; i++) await env.step(left);
    const snap = JSON.parse(JSON.stringify(await env.snapshot())) as EnvironmentSnapshot;
    const other = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    await other.restore(snap);
    expect(await stepsUntilEnd(other)).toBe(30);
    expect(await errorCode(() => env.reset({ taskId: "4x4", seed: 0, maxSteps: 0 }))).toBe(
      "frozenlake.bad_reset",
    );
  });
});

describe("frozenlake snapshot validation", () => {
  async function snapshotAfter(moves: number): Promise<{ snap: EnvironmentSnapshot; state: EpisodeState }> {
    const env = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    await env.reset({ taskId: "4x4", seed: 3 });
    for (let i = 0; i < moves; i++) await env.step(left);
    const snap = await env.snapshot();
    return { snap, state: snap.state as EpisodeState };
  }

  async function restoreCode(snap: EnvironmentSnapshot, edit: Partial<EpisodeState>) {
    const env = createFrozenLakeEnvironment({ slippery: false, suite: SMALL_SUITE });
    return errorCode(() => env.restore({ ...snap, state: { ...(snap.state as object), ...edit } }));
  }

  it("accepts the snapshots it makes", async () => {
    const { snap } = await snapshotAfter(2);
    expect(await restoreCode(snap, {})).toBeUndefined();
    const end = await snapshotAfter(100);
    expect((end.state as EpisodeState).truncated).toBe(true);
    expect(await restoreCode(end.snap, {})).toBeUndefined();
  });

  it("refuses a player on a hole or the goal that is not terminated, and other unreachable states", async () => {
    const { snap } = await snapshotAfter(2);
    // 4x4: SFFF / FHFH / FFFH / HFFG — holes at (1,1) and (3,0), the goal at (3,3).
    const bad: Array<Partial<EpisodeState>> = [
      { row: 1, col: 1 },
      { row: 3, col: 0 },
      { row: 3, col: 3 },
      { row: 0, col: 1, terminated: true },
      { truncated: true },
      { steps: 101 },
      { steps: 100 },
      { row: 1, col: 1, terminated: true, truncated: true },
    ];
    for (const edit of bad) {
      expect(await restoreCode(snap, edit), JSON.stringify(edit)).toBe("frozenlake.bad_snapshot");
    }
    expect(await restoreCode(snap, { row: 1, col: 1, terminated: true })).toBeUndefined();
    expect(await restoreCode(snap, { row: 3, col: 3, terminated: true })).toBeUndefined();
  });
});

describe("frozenlake action order and slip frame", () => {
  it("orders actions 0 left, 1 down, 2 right, 3 up and slips relative to the intended direction", () => {
    expect(DIRECTIONS).toEqual(["left", "down", "right", "up"]);
    // "left" is the intended direction rotated counter-clockwise on screen, "right" clockwise.
    expect(["up", "left", "down", "right"].map((d) => turnLeft(d as never))).toEqual([
      "left",
      "down",
      "right",
      "up",
    ]);
    expect(["up", "right", "down", "left"].map((d) => turnRight(d as never))).toEqual([
      "right",
      "down",
      "left",
      "up",
    ]);
  });
});
