import { describe, expect, it } from "vitest";
import { type Action, createRuntime, type Policy } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";

const left: Action = { type: "move", direction: "left" };

/** Always "left": from the start of the standard maps that is a wall, so only a step limit ends it. */
const wallWalker: Policy = {
  name: "wall",
  async propose(_ctx, { n }) {
    return { candidates: Array.from({ length: n }, () => ({ action: left, raw: "left" })) };
  },
};

/** Answers in prose on odd steps: those steps are recorded but do not step the environment. */
const sometimesProse: Policy = {
  name: "prose",
  async propose(ctx) {
    if (ctx.stepIndex % 2 === 1) {
      return {
        candidates: [
          { action: null, raw: "go left", parseError: { code: "parse.no_action", message: "prose" } },
        ],
      };
    }
    return { candidates: [{ action: left, raw: "left" }] };
  },
};

async function play(envOptions: Record<string, unknown>, taskId: string, policy: Policy, maxSteps?: number) {
  const store = createMemoryStore();
  store.createRun({ id: "run", kind: "run", seed: "s", config: {}, codeVersion: "t", createdAtMs: 0 });
  const env = createFrozenLakeEnvironment({
    slippery: false,
    suite: { randomMaps: { count: 0 } },
    ...envOptions,
  });
  await runEpisodes(
    { env, policy, runtime: createRuntime({ seed: "s" }), store },
    {
      runId: "run",
      tasks: [env.suite.get(taskId)],
      episodes: 1,
      seed: "s",
      temperature: 1,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    },
  );
  const [header] = store.listTrajectories("run");
  const t = header && store.getTrajectory(header.id);
  if (!t) throw new Error("no trajectory recorded");
  return t;
}

describe("the runner's step limit", () => {
  it("plays to the environment's horizon (no cap of its own at 50) and records the truncation", async () => {
    const t = await play({ horizon: 80 }, "4x4", wallWalker);
    expect(t.steps).toHaveLength(80);
    expect(t.steps.at(-1)?.truncated).toBe(true);
    expect(t.steps.slice(0, -1).some((s) => s.truncated || s.terminated)).toBe(false);
    expect(t.outcome?.reason).toContain("horizon of 80");
  });

  it("defaults to Gymnasium's 100 steps on the standard maps", async () => {
    for (const taskId of ["4x4", "8x8"]) {
      const t = await play({}, taskId, wallWalker);
      expect(t.steps, taskId).toHaveLength(100);
      expect(t.steps.at(-1)?.truncated).toBe(true);
    }
  });

  it("--max-steps raises the environment's limit too", async () => {
    const t = await play({}, "8x8", wallWalker, 200);
    expect(t.steps).toHaveLength(200);
    expect(t.steps.at(-1)?.truncated).toBe(true);
    expect(t.outcome?.reason).toContain("horizon of 200");
  });

  it("records truncation when the runner's limit cuts before the environment's", async () => {
    // Skipped (prose) steps count for the runner, not for the environment: the runner stops first.
    const t = await play({}, "4x4", sometimesProse, 5);
    expect(t.steps).toHaveLength(5);
    expect(t.steps.filter((s) => s.action === null)).toHaveLength(2);
    expect(t.steps.at(-1)?.truncated).toBe(true);
    expect(t.steps.slice(0, -1).some((s) => s.truncated)).toBe(false);
  });
});
