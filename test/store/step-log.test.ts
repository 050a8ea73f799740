import { describe, expect, it } from "vitest";
import { type Action, type Observation, type StepRecord, StepRecordSchema } from "../../src/core/index.ts";
import { stepDataText } from "../../src/store/encode-step.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { StepLog } from "../../src/store/step-log.ts";
import { fastStepPieces } from "../../src/store/step-text.ts";

const OBSERVATION: Observation = Object.freeze({
  text: "cell",
  legalActions: Object.freeze<Action[]>([]) as Action[],
});

function step(index: number): StepRecord {
  const action = index % 3 === 0 ? null : { type: "move" as const, direction: "left" as const };
  return {
    index,
    observation: OBSERVATION,
    action,
    raw: `raw "${index}"`,
    ...(action === null ? { parseError: { code: "p", message: `m${index}` } } : {}),
    reward: [0, 1, -0.5, 1e-9, 123456.789][index % 5] as number,
    terminated: index % 4 === 1,
    truncated: index % 7 === 2,
    info: { i: index },
    timeMs: 1_700_000_000_000 + index * 0.25,
  };
}

describe("memory store step log", () => {
  it("gives back each step's text, across growth and mixed with schema-path texts", () => {
    const log = new StepLog();
    const expected: string[] = [];
    for (let i = 0; i < 150; i++) {
      const s = step(i);
      // Every fifth step as schema-path text (what the store keeps for steps the fast path declines).
      const data = i % 5 === 4 ? JSON.stringify(StepRecordSchema.parse(s)) : fastStepPieces(s);
      if (data === undefined) throw new Error(`step ${i} did not take the fast path`);
      log.push(data);
      expected.push(stepDataText(data));
    }
    expect(log.length).toBe(150);
    expect(log.texts()).toEqual(expected);
    expect(log.text(77)).toBe(expected[77]);
  });

  it("reads back what the step schema gives for 150 steps of one trajectory", () => {
    const store = createMemoryStore();
    store.createRun({ id: "r", kind: "test", seed: "s", config: {}, codeVersion: "t", createdAtMs: 0 });
    store.startTrajectory({
      id: "t",
      runId: "r",
      taskId: "x",
      episodeIndex: 0,
      seed: 1,
      policy: "p",
      startedAtMs: 0,
    });
    const steps = Array.from({ length: 150 }, (_, i) => step(i));
    for (const s of steps) store.appendStep("t", s);
    expect(store.getTrajectory("t")?.steps).toEqual(steps.map((s) => StepRecordSchema.parse(s)));
  });
});
