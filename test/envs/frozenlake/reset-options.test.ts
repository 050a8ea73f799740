import { describe, expect, it } from "vitest";
import { ResetOptionsSchema } from "../../../src/core/environment.ts";
import { createFrozenLakeEnvironment } from "../../../src/envs/frozenlake/index.ts";

// reset() checks the common well-formed options by hand before the schema: it must accept and
// reject exactly what ResetOptionsSchema does, and apply maxSteps the same way.
const CASES: unknown[] = [
  { taskId: "4x4", seed: 0 },
  { taskId: "4x4", seed: 7, maxSteps: 3 },
  { taskId: "4x4", seed: 7, maxSteps: undefined },
  { taskId: "4x4", seed: 2, extra: true },
  { taskId: "4x4", seed: -1 },
  { taskId: "4x4", seed: 1.5 },
  { taskId: "4x4", seed: Number.NaN },
  { taskId: "4x4", seed: Number.POSITIVE_INFINITY },
  { taskId: "4x4", seed: "1" },
  { taskId: "4x4" },
  { taskId: "", seed: 0 },
  { taskId: 4, seed: 0 },
  { seed: 0 },
  { taskId: "4x4", seed: 0, maxSteps: 0 },
  { taskId: "4x4", seed: 0, maxSteps: 2.5 },
  { taskId: "4x4", seed: 0, maxSteps: -3 },
  { taskId: "4x4", seed: 0, maxSteps: "5" },
  { taskId: "4x4", seed: 0, maxSteps: null },
  null,
  "4x4",
];

describe("FrozenLake reset options", () => {
  it("accepts and rejects exactly what ResetOptionsSchema does, with the same step limit", async () => {
    const env = createFrozenLakeEnvironment({});
    for (const options of CASES) {
      const schema = ResetOptionsSchema.safeParse(options);
      const label = JSON.stringify(options) ?? String(options);
      if (!schema.success) {
        await expect(env.reset(options as never), label).rejects.toMatchObject({
          code: "frozenlake.bad_reset",
        });
        continue;
      }
      await env.reset(options as never);
      const snap = await env.snapshot();
      expect(snap.seed, label).toBe(schema.data.seed);
      expect(snap.taskId, label).toBe(schema.data.taskId);
      expect((snap.state as { horizon?: number }).horizon, label).toBe(schema.data.maxSteps);
    }
    await env.close();
  });
});
