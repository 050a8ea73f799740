import { describe, expect, it } from "vitest";
import { type Action, type Observation, type StepRecord, StepRecordSchema } from "../../src/core/index.ts";
import { stepDataText } from "../../src/store/encode-step.ts";
import { createMemoryStore, type RunStore } from "../../src/store/index.ts";
import { StepRange, StepTable } from "../../src/store/step-table.ts";
import { fastStepPieces } from "../../src/store/step-text.ts";

const OBSERVATION: Observation = Object.freeze({
  text: "cell",
  legalActions: Object.freeze<Action[]>([]) as Action[],
});

function step(index: number, tag = ""): StepRecord {
  const action = index % 3 === 0 ? null : { type: "move" as const, direction: "left" as const };
  return {
    index,
    // Frozen (kept once, found by identity) and fresh observations in turn.
    observation: index % 2 === 0 ? OBSERVATION : { text: `cell ${tag}${index}` },
    action,
    // A long raw text now and then (kept per step), short ones otherwise (kept once by value).
    raw: index % 11 === 5 ? `raw ${tag}${index} ${"x".repeat(300)}` : `raw "${index % 4}"`,
    ...(action === null ? { parseError: { code: "p", message: `m${index}` } } : {}),
    reward: [0, 1, -0.5, 1e-9, 123456.789][index % 5] as number,
    terminated: index % 4 === 1,
    truncated: index % 7 === 2,
    info: index % 2 === 0 ? { i: index } : Object.freeze({ cell: index % 3 }),
    timeMs: 1_700_000_000_000 + index * 0.25,
  };
}

function storeWithRun(): RunStore {
  const store = createMemoryStore();
  store.createRun({ id: "r", kind: "test", seed: "s", config: {}, codeVersion: "t", createdAtMs: 0 });
  return store;
}

function start(store: RunStore, id: string): void {
  store.startTrajectory({
    id,
    runId: "r",
    taskId: "x",
    episodeIndex: 0,
    seed: 1,
    policy: "p",
    startedAtMs: 0,
  });
}

describe("memory store step table", () => {
  it("gives back each step's text across chunks, mixed with schema-path texts", () => {
    const table = new StepTable();
    const range = new StepRange();
    const expected: string[] = [];
    // Past two chunks of rows (1024 each).
    for (let i = 0; i < 2500; i++) {
      const s = step(i);
      if (i % 5 === 4) {
        // What the store keeps for steps the fast path declines: their schema text.
        const text = JSON.stringify(StepRecordSchema.parse(s));
        table.append(range, text);
        expected.push(text);
      } else {
        const pieces = fastStepPieces(s);
        if (pieces === undefined) throw new Error(`step ${i} did not take the fast path`);
        expect(table.tryAppend(range, s), `step ${i}`).toBe(true);
        expected.push(stepDataText(pieces));
      }
    }
    expect(range.length).toBe(2500);
    expect(table.texts(range)).toEqual(expected);
    expect(table.texts(range, 1777, 1780)).toEqual(expected.slice(1777, 1780));
    expect(table.texts(range, 2499, 2600)).toEqual(expected.slice(2499));
  });

  it("declines a step out of order or one the fast path cannot take, appending nothing", () => {
    const table = new StepTable();
    const range = new StepRange();
    expect(table.tryAppend(range, step(1))).toBe(false);
    expect(table.tryAppend(range, { ...step(0), reward: Number.NaN })).toBe(false);
    expect(table.tryAppend(range, { ...step(0), info: new Map() as never })).toBe(false);
    expect(range.length).toBe(0);
    expect(table.tryAppend(range, step(0))).toBe(true);
    expect(range.length).toBe(1);
  });

  it("keeps trajectories written at once apart (interleaved rows, runs of different lengths)", () => {
    const store = storeWithRun();
    const ids = ["a", "b", "c"];
    for (const id of ids) start(store, id);
    const written: Record<string, StepRecord[]> = { a: [], b: [], c: [] };
    // a and b alternate step by step; c writes in bursts of 1..4 between them.
    for (let round = 0; round < 40; round++) {
      for (const id of ["a", "b"]) {
        const s = step(written[id]?.length ?? 0, id);
        store.appendStep(id, s);
        written[id]?.push(s);
      }
      for (let k = 0; k < (round % 4) + 1; k++) {
        const s = step(written.c?.length ?? 0, "c");
        store.appendStep("c", s);
        written.c?.push(s);
      }
    }
    for (const id of ids) {
      const expected = (written[id] ?? []).map((s) => StepRecordSchema.parse(s));
      expect(store.getTrajectory(id)?.steps, id).toEqual(expected);
      expect(store.listSteps(id, { offset: 17, limit: 9 }), id).toEqual(expected.slice(17, 26));
    }
  });

  it("reads back what the step schema gives for 150 steps of one trajectory", () => {
    const store = storeWithRun();
    start(store, "t");
    const steps = Array.from({ length: 150 }, (_, i) => step(i));
    for (const s of steps) store.appendStep("t", s);
    expect(store.getTrajectory("t")?.steps).toEqual(steps.map((s) => StepRecordSchema.parse(s)));
  });

  it("finds a frozen value's text by identity only for the kind it was checked as", () => {
    const store = storeWithRun();
    start(store, "t");
    // A valid info (any record) that is not a valid observation (text must be a string).
    const shared = Object.freeze({ text: 5 }) as unknown as Observation;
    store.appendStep("t", { ...step(0), info: shared as never });
    expect(() => store.appendStep("t", { ...step(1), observation: shared })).toThrow(/observation|text/i);
    expect(store.getTrajectory("t")?.steps).toHaveLength(1);
  });

  it("stores a fresh observation's text at each step, even when the same object changed in between", () => {
    const store = storeWithRun();
    start(store, "t");
    const observation: Observation = { text: "before" };
    store.appendStep("t", { ...step(1), index: 0, observation });
    observation.text = "after";
    store.appendStep("t", { ...step(1), index: 1, observation });
    expect(store.getTrajectory("t")?.steps.map((s) => s.observation.text)).toEqual(["before", "after"]);
  });
});
