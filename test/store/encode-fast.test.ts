import { describe, expect, it } from "vitest";
import type { NewTrajectory, TrajectoryEnd } from "../../src/store/contract.ts";
import { NewTrajectorySchema, TrajectoryEndFieldsSchema } from "../../src/store/encode.ts";
import { fastEndTexts, fastTrajectoryMeta } from "../../src/store/encode-fast.ts";
import { createMemoryStore } from "../../src/store/index.ts";

/*
 * The hand checks of a trajectory's start and end accept only what the schemas accept, and give the
 * texts the schema path stores (key order, stripped keys, defaults); everything else falls back.
 */

const START: NewTrajectory = {
  id: "t",
  runId: "r",
  taskId: "k",
  episodeIndex: 3,
  seed: 7,
  policy: "p",
  startedAtMs: 5,
  meta: {},
};

const starts: unknown[] = [
  START,
  { ...START, meta: undefined },
  { ...START, meta: { group: 2, nested: { a: [1, "é"] } } },
  { ...START, extra: "stripped" },
  { ...START, id: "" },
  { ...START, seed: -1 },
  { ...START, seed: 1.5 },
  { ...START, episodeIndex: Number.MAX_SAFE_INTEGER + 2 },
  { ...START, startedAtMs: Number.NaN },
  { ...START, startedAtMs: Number.POSITIVE_INFINITY },
  { ...START, policy: 3 },
  { ...START, meta: null },
  { ...START, meta: [1] },
  { ...START, meta: new Map() },
  { ...START, meta: Object.defineProperty({}, "hidden", { value: 1, enumerable: false }) },
  { ...START, meta: { [Symbol("s")]: 1 } },
  null,
  "start",
];

const OUTCOME = { reward: 1, success: true, reason: "ok", metrics: { a: 0.5 } };
const ends: unknown[] = [
  { status: "complete", endedAtMs: 9, outcome: OUTCOME },
  {
    status: "complete",
    endedAtMs: 9,
    outcome: { metrics: { b: 1, a: 2 }, reason: "r", success: false, reward: -0 },
  },
  { status: "complete", endedAtMs: 9, outcome: { reward: 0, success: false, reason: "no metrics" } },
  { status: "complete", endedAtMs: 9, outcome: { ...OUTCOME, extra: 1 } },
  { status: "aborted", endedAtMs: 9, error: { message: "m", code: "c", category: "user", more: 1 } },
  { status: "infra_failed", endedAtMs: 9, error: { code: "c", category: "environment", message: 'é\n"' } },
  { status: "complete", endedAtMs: 9, outcome: { ...OUTCOME, metrics: { a: "1" } } },
  { status: "complete", endedAtMs: 9, outcome: { ...OUTCOME, metrics: { a: Number.NaN } } },
  { status: "complete", endedAtMs: 9, outcome: { ...OUTCOME, reward: Number.POSITIVE_INFINITY } },
  { status: "complete", endedAtMs: 9, outcome: { ...OUTCOME, metrics: null } },
  { status: "complete", endedAtMs: 9, outcome: null },
  { status: "aborted", endedAtMs: 9, error: { code: "c", message: "m" } },
  { status: "running", endedAtMs: 9 },
  { status: "complete", endedAtMs: "9" },
  null,
];

describe("the per-episode fast path", () => {
  it.each(starts.map((s, i) => [i, s]))(
    "start %i: the fast meta text is the schema's, or it falls back",
    (_, t) => {
      const fast = fastTrajectoryMeta(t as NewTrajectory);
      const parsed = NewTrajectorySchema.safeParse(t);
      if (fast !== undefined) {
        expect(parsed.success).toBe(true);
        if (parsed.success) expect(fast).toBe(JSON.stringify(parsed.data.meta));
      }
    },
  );

  it.each(ends.map((e, i) => [i, e]))(
    "end %i: the fast texts are the schema's, or it falls back",
    (_, end) => {
      const fast = fastEndTexts(end as TrajectoryEnd);
      const parsed = TrajectoryEndFieldsSchema.safeParse(end);
      if (fast !== undefined) {
        expect(parsed.success).toBe(true);
        if (!parsed.success) return;
        expect(fast.outcome).toBe(parsed.data.outcome ? JSON.stringify(parsed.data.outcome) : null);
        expect(fast.error).toBe(parsed.data.error ? JSON.stringify(parsed.data.error) : null);
      }
    },
  );

  it("takes the fast path for the valid cases and rejects the invalid ones with the schema's errors", () => {
    expect(starts.slice(0, 4).every((t) => fastTrajectoryMeta(t as NewTrajectory) !== undefined)).toBe(true);
    expect(ends.slice(0, 6).every((e) => fastEndTexts(e as TrajectoryEnd) !== undefined)).toBe(true);
    const store = createMemoryStore();
    store.createRun({ id: "r", kind: "k", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
    expect(() => store.startTrajectory({ ...START, seed: -1 })).toThrow(/seed/);
    store.startTrajectory({ ...START, meta: { group: 2 } });
    expect(store.getTrajectoryHeader("t")?.meta).toEqual({ group: 2 });
    const final = Object.freeze({ text: "end" });
    expect(() =>
      store.finishTrajectory("t", {
        status: "complete",
        endedAtMs: 9,
        finalObservation: final,
        outcome: { ...OUTCOME, reward: Number.NaN },
      }),
    ).toThrow(/reward/);
    store.finishTrajectory("t", {
      status: "complete",
      endedAtMs: 9,
      finalObservation: final,
      outcome: { metrics: {}, reason: "r", success: true, reward: 1 } as never,
    });
    expect(JSON.stringify(store.getTrajectory("t")?.outcome)).toBe(
      '{"reward":1,"success":true,"reason":"r","metrics":{}}',
    );
  });
});
