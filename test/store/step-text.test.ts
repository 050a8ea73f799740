import { describe, expect, it } from "vitest";
import { createRandom, type StepRecord, StepRecordSchema } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { fastStepText } from "../../src/store/step-text.ts";

/*
 * The per-step fast path must store exactly the text the schema path stores
 * (`JSON.stringify(StepRecordSchema.parse(step))`), and hand anything it does not accept to the schema.
 */

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const schemaText = (step: unknown) => JSON.stringify(StepRecordSchema.parse(step));

function base(overrides: Record<string, unknown> = {}): StepRecord {
  return {
    index: 3,
    observation: {
      text: 'grid\n"quoted" \u2603',
      instruction: "go",
      stateKey: "k:1",
      legalActions: [
        { type: "move", direction: "left" },
        { type: "move", direction: "up" },
      ],
      data: { row: 1, nested: { a: [1, null, "x"] } },
    },
    action: { type: "move", direction: "left" },
    raw: '{"type":"move","direction":"left"}',
    reward: 0.25,
    terminated: false,
    truncated: true,
    info: { slipped: true, probabilities: { left: 1 / 3 } },
    timeMs: 1234.5,
    ...overrides,
  } as StepRecord;
}

describe("fast step text", () => {
  it("equals the schema path's text for valid steps, frozen or not, in any key order", () => {
    const shuffled = base();
    const reordered = {
      timeMs: shuffled.timeMs,
      info: shuffled.info,
      parseError: { code: "p", message: "m", extra: 1 },
      raw: shuffled.raw,
      action: null,
      observation: { data: { z: 1 }, text: "t", unknownKey: 5 },
      truncated: false,
      terminated: true,
      reward: -0,
      index: 0,
      stray: "dropped",
    };
    const cases: unknown[] = [
      base(),
      deepFreeze(base()),
      base({ observation: deepFreeze(base().observation) }),
      base({ action: deepFreeze({ type: "wait" }) }), // the schema adds ms: 500
      base({ action: { type: "wait" } }),
      base({ action: { type: "click", elementId: "12" }, info: {} }),
      base({ info: { when: undefined, list: [undefined, 1] } }),
      base({ info: deepFreeze({ slipped: false, from: { row: 1 } }) }),
      base({ observation: deepFreeze({ text: "x", extra: { deep: true } }) }),
      base({ observation: { text: "ref", screenshot: { mime: "image/png", sha256: "a".repeat(64) } } }),
      reordered,
    ];
    for (const step of cases) {
      const fast = fastStepText(step as StepRecord);
      expect(fast, JSON.stringify(step)).toBeDefined();
      expect(fast).toBe(schemaText(step));
    }
  });

  it("equals the schema path's text on FrozenLake's own steps", async () => {
    const env = createFrozenLakeEnvironment({});
    const random = createRandom("step-text", 1);
    let observation = await env.reset({ taskId: "8x8", seed: 1 });
    for (let index = 0; index < 300; index++) {
      const action = random.pick(observation.legalActions ?? []);
      const result = await env.step(action);
      const step: StepRecord = {
        index,
        observation,
        action,
        raw: JSON.stringify(action),
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
        info: result.info,
        timeMs: index,
      };
      expect(fastStepText(step)).toBe(schemaText(step));
      observation =
        result.terminated || result.truncated
          ? await env.reset({ taskId: "8x8", seed: index })
          : result.observation;
    }
    await env.close();
  });

  it("hands invalid or unusual steps to the schema path", () => {
    class Info {
      x = 1;
    }
    const bytes = new Uint8Array([1]);
    const rejected: unknown[] = [
      base({ index: -1 }),
      base({ index: 1.5 }),
      base({ reward: Number.NaN }),
      base({ reward: Number.POSITIVE_INFINITY }),
      base({ timeMs: "1" }),
      base({ terminated: 1 }),
      base({ raw: undefined }),
      base({ action: { type: "move", direction: "sideways" } }),
      base({ action: deepFreeze({ type: "nonsense" }) }),
      base({ observation: { text: 5 } }),
      base({ observation: deepFreeze({ text: 5 }) }),
      base({ observation: { text: "x", screenshot: { mime: "image/png", sha256: "a".repeat(64), bytes } } }),
      base({ parseError: { code: 1, message: "m" } }),
      base({ info: [] }),
      base({ info: new Info() }),
      base({ info: { [Symbol("s")]: 1 } }),
      null,
      [],
    ];
    for (const step of rejected)
      expect(fastStepText(step as StepRecord), String(step && JSON.stringify(step))).toBeUndefined();
  });

  it("never reuses the text of an observation that changed after it was stored", () => {
    const store = createMemoryStore();
    store.createRun({ id: "r", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
    store.startTrajectory({
      id: "t",
      runId: "r",
      taskId: "k",
      episodeIndex: 0,
      seed: 0,
      policy: "p",
      startedAtMs: 0,
    });
    const observation = { text: "before", data: { n: 1 } };
    store.appendStep("t", base({ index: 0, observation }));
    observation.text = "after";
    observation.data.n = 2;
    store.appendStep("t", base({ index: 1, observation }));
    const steps = store.getTrajectory("t")?.steps ?? [];
    expect(steps.map((s) => [s.observation.text, s.observation.data?.n])).toEqual([
      ["before", 1],
      ["after", 2],
    ]);
    store.close();
  });
});
