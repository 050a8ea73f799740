import { describe, expect, it } from "vitest";
import { type Action, type StepRecord, StepRecordSchema } from "../../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../../src/envs/frozenlake/index.ts";
import { createMemoryStore } from "../../../src/store/index.ts";

const SUITE = { randomMaps: { count: 2 } };
const move = (direction: "left" | "down" | "right" | "up"): Action => ({ type: "move", direction });

function deeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe("frozenlake step info", () => {
  it("is one frozen object per transition, shared by steps and environments, with the same fields", async () => {
    const a = createFrozenLakeEnvironment({ slippery: false, suite: SUITE });
    const b = createFrozenLakeEnvironment({ slippery: false, suite: SUITE });
    await a.reset({ taskId: "4x4", seed: 0 });
    await b.reset({ taskId: "4x4", seed: 7 });
    const first = await a.step(move("down"));
    const again = await b.step(move("down"));
    expect(deeplyFrozen(first.info)).toBe(true);
    expect(again.info).toBe(first.info);
    // Same keys in the same order as before the info was cached (stored text depends on it).
    expect(JSON.stringify(first.info)).toBe(
      JSON.stringify({
        holeProbabilities: { left: 0, down: 0, right: 0, up: 0 },
        from: { row: 0, col: 0 },
        intended: "down",
        actual: "down",
        slipped: false,
        goodMove: true,
      }),
    );
    const invalid = await a.step({ type: "click", elementId: "1" } as Action);
    expect(deeplyFrozen(invalid.info)).toBe(true);
    expect(JSON.stringify(invalid.info)).toBe(
      JSON.stringify({
        holeProbabilities: { left: 0, down: 0, right: 1, up: 0 },
        from: { row: 1, col: 0 },
        intended: null,
        actual: null,
        slipped: false,
        invalid: true,
      }),
    );
    expect((await a.step({ type: "click", elementId: "2" } as Action)).info).toBe(invalid.info);
  });

  it("is stored as the step schema gives it, and read back as a copy", async () => {
    const env = createFrozenLakeEnvironment({ suite: SUITE });
    const store = createMemoryStore();
    store.createRun({ id: "r", kind: "test", seed: "s", config: {}, codeVersion: "t", createdAtMs: 0 });
    store.startTrajectory({
      id: "t",
      runId: "r",
      taskId: "8x8",
      episodeIndex: 0,
      seed: 3,
      policy: "p",
      startedAtMs: 0,
    });
    let observation = await env.reset({ taskId: "8x8", seed: 3 });
    const records: StepRecord[] = [];
    for (let index = 0; index < 6; index++) {
      const action = move(index % 2 === 0 ? "right" : "down");
      const r = await env.step(action);
      const record: StepRecord = {
        index,
        observation,
        action,
        raw: JSON.stringify(action),
        reward: r.reward,
        terminated: r.terminated,
        truncated: r.truncated,
        info: r.info,
        timeMs: index,
      };
      store.appendStep("t", record);
      records.push(record);
      observation = r.observation;
      if (r.terminated || r.truncated) break;
    }
    const read = store.getTrajectory("t");
    expect(read?.steps.map((s) => JSON.stringify(s))).toEqual(
      records.map((s) => JSON.stringify(StepRecordSchema.parse(s))),
    );
    const info = read?.steps[0]?.info as Record<string, unknown>;
    expect(info).not.toBe(records[0]?.info);
    info.extra = 1;
    expect(store.getTrajectory("t")?.steps[0]?.info).not.toHaveProperty("extra");
  });
});
