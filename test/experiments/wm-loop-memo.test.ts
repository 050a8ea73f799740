import { describe, expect, it } from "vitest";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { memoWorldModel } from "../../src/experiments/wm-loop/wm-memo.ts";
import type { WorldModel } from "../../src/rl/world-model.ts";

describe("wm-loop's memoised world model", () => {
  it("asks the inner model once per (task, observation, action) and returns its answer", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const task = env.suite.get("4x4");
    const observation = await env.reset({ taskId: task.id, seed: 0 });
    const asked: string[] = [];
    const inner: WorldModel = {
      name: "counting",
      async predict(action, context) {
        asked.push(JSON.stringify(action));
        return {
          observation: context.observation,
          reward: asked.length,
          terminated: false,
          truncated: false,
          success: false,
        };
      },
    };
    const wm = memoWorldModel(inner);
    const down = { type: "move", direction: "down" } as const;
    const right = { type: "move", direction: "right" } as const;
    const first = await wm.predict(down, { task, observation });
    expect(await wm.predict(down, { task, observation })).toBe(first);
    const other = await wm.predict(right, { task, observation });
    expect(other.reward).toBe(2);
    const moved = { ...observation, text: `${observation.text} ` };
    expect((await wm.predict(down, { task, observation: moved })).reward).toBe(3);
    expect(asked).toHaveLength(3);
    expect(wm.name).toBe("counting");
    // Past the limit it stops remembering (answers still come from the inner model).
    const small = memoWorldModel(inner, 1);
    await small.predict(down, { task, observation });
    await small.predict(right, { task, observation });
    await small.predict(right, { task, observation });
    expect(asked).toHaveLength(6);
    await env.close();
  });
});
