import { describe, expect, it } from "vitest";
import { type Action, syncTwinOf } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { STEPS_PER_YIELD, yieldingEnvironment } from "../../src/runner/yielding-environment.ts";

// FrozenLake never waits on I/O: without the wrapper's yields a queued callback (a signal handler's
// work) would wait for the whole loop.
describe("yieldingEnvironment", () => {
  it("lets the event loop run on every reset and within every STEPS_PER_YIELD steps", async () => {
    const env = yieldingEnvironment(createFrozenLakeEnvironment({ slippery: false }));
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await env.reset({ taskId: "8x8", seed: 0, maxSteps: 10_000 });
    expect(ran).toBe(true);
    // Bumping into the top edge: the episode never ends.
    const up: Action = { type: "move", direction: "up" };
    for (let round = 0; round < 4; round++) {
      let seenAt: number | undefined;
      let steps = 0;
      setImmediate(() => {
        seenAt = steps;
      });
      while (seenAt === undefined && steps < 10 * STEPS_PER_YIELD) {
        const r = await env.step(up);
        expect(r.terminated || r.truncated).toBe(false);
        steps++;
      }
      expect(seenAt).toBeDefined();
      expect(seenAt as number).toBeLessThanOrEqual(STEPS_PER_YIELD);
    }
    // Other members pass through, bound to the environment, and stay the same function.
    expect(env.family).toBe("frozenlake");
    expect(env.evaluate).toBe(env.evaluate);
    expect((await env.evaluate()).success).toBe(false);
    await env.close();
  });

  it("has no synchronous step, which would skip the yields", () => {
    const inner = createFrozenLakeEnvironment({});
    expect(typeof syncTwinOf(inner.step)).toBe("function");
    expect(syncTwinOf(yieldingEnvironment(inner).step)).toBeUndefined();
  });
});
