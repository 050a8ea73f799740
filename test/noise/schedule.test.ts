import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRandom, UserError } from "../../src/core/index.ts";
import {
  bucketSteps,
  evaluationSchedule,
  fireCount,
  generatorByName,
  generatorsOf,
  lastStepFor,
  type NoiseGenerator,
  parseScheduleOptions,
  type ScheduleOptionsInput,
  sampleSchedule,
} from "../../src/noise/index.ts";
import { sampleSet } from "./print-schedules.ts";

function frequencies(successRate: number, draws = 3000): Map<number, number> {
  const random = createRandom("test-fire-count", successRate);
  const counts = new Map<number, number>();
  for (let i = 0; i < draws; i++) {
    const n = fireCount(successRate, random);
    counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  return new Map([...counts].map(([n, c]) => [n, c / draws]));
}

describe("fireCount: the four success-rate bands", () => {
  it("s < 0.10 never fires; s < 0.25 fires exactly once", () => {
    for (const s of [0, 0.05, 0.0999]) expect([...frequencies(s)]).toEqual([[0, 1]]);
    for (const s of [0.1, 0.2, 0.2499]) expect([...frequencies(s)]).toEqual([[1, 1]]);
  });

  it("s < 0.50 is uniform on {1,2,3}; otherwise uniform on {3,4,5}", () => {
    for (const [s, values] of [
      [0.25, [1, 2, 3]],
      [0.4, [1, 2, 3]],
      [0.5, [3, 4, 5]],
      [1, [3, 4, 5]],
    ] as const) {
      const f = frequencies(s);
      expect([...f.keys()].sort()).toEqual([...values]);
      for (const v of values) expect(Math.abs((f.get(v) ?? 0) - 1 / 3)).toBeLessThan(0.04);
    }
  });

  it("a success rate outside [0, 1] or NaN is a UserError", () => {
    for (const s of [-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => fireCount(s, createRandom("x"))).toThrow(UserError);
      try {
        fireCount(s, createRandom("x"));
      } catch (e) {
        expect((e as UserError).code).toBe("noise.bad_success_rate");
      }
      expect(() =>
        sampleSchedule({ taskId: "t", rollout: 0, purpose: "search", successRate: s, split: "train" }),
      ).toThrow(UserError);
    }
  });
});

describe("bucketSteps", () => {
  it("one strictly increasing step per equal bucket, capped by the range size", () => {
    const r = createRandom("buckets");
    for (let i = 0; i < 200; i++) {
      const steps = bucketSteps(2, 11, 3, r);
      expect(steps).toHaveLength(3);
      expect(steps[0]).toBeGreaterThanOrEqual(2);
      expect(steps[0]).toBeLessThanOrEqual(4);
      expect(steps[1]).toBeGreaterThanOrEqual(5);
      expect(steps[1]).toBeLessThanOrEqual(7);
      expect(steps[2]).toBeGreaterThanOrEqual(8);
      expect(steps[2]).toBeLessThanOrEqual(11);
    }
    expect(bucketSteps(3, 4, 5, r)).toEqual([3, 4]);
    expect(bucketSteps(5, 4, 3, r)).toEqual([]);
  });
});

const OPTION_SETS: ScheduleOptionsInput[] = [
  {},
  { horizon: 10 },
  { horizon: 15, span: 4 },
  { horizon: 20, span: 12, protectedSteps: 2, buffer: 2 },
  { horizon: 6, buffer: 0 },
  { horizon: 15, span: 1 },
  { horizon: 8, protectedSteps: 3, span: 6 },
];

describe("sampleSchedule: placement", () => {
  it("respects range, cost room, buckets, non-repeatable use and the split on many schedules", () => {
    let schedules = 0;
    let events = 0;
    // Every check of every schedule, collected and asserted once at the end (one expect call per
    // check cost more than the sampling): each failed check names the schedule and what it broke.
    const failed: string[] = [];
    for (const split of ["train", "heldout"] as const) {
      const pool = generatorsOf(split);
      for (const [o, input] of OPTION_SETS.entries()) {
        const options = parseScheduleOptions(input);
        const span = options.span ?? options.horizon;
        const hi = Math.max(...pool.map((g) => lastStepFor(g, options)));
        for (const s of [0.05, 0.2, 0.3, 0.6, 0.95]) {
          for (let rollout = 0; rollout < 40; rollout++) {
            for (const fromStep of [0, 1, 4]) {
              const taskId = `task-${o}-${rollout % 7}`;
              const purpose = rollout % 2 === 0 ? "search" : "rl";
              const schedule = sampleSchedule({
                taskId,
                rollout,
                purpose,
                successRate: s,
                split,
                options: input,
                fromStep,
              });
              schedules++;
              const where = `${split} options#${o} s=${s} rollout=${rollout} fromStep=${fromStep}`;
              const check = (ok: boolean, what: string) => {
                if (!ok) failed.push(`${where}: ${what}`);
              };
              check(
                schedule.taskId === taskId &&
                  schedule.rollout === String(rollout) &&
                  schedule.purpose === purpose,
                `header ${JSON.stringify([schedule.taskId, schedule.rollout, schedule.purpose])}`,
              );
              // Reproduce the fire count and the buckets from the same seed.
              const random = createRandom("noise", purpose, taskId, String(rollout), fromStep);
              const n = fireCount(s, random);
              const lo = Math.max(options.protectedSteps, fromStep);
              const size = Math.max(0, hi - lo + 1);
              const count = Math.min(n, size);
              check(schedule.events.length === count, `${schedule.events.length} events, expected ${count}`);
              // Bucket i holds steps lo + [floor(i·size/count), floor((i+1)·size/count)).
              const bucketOf = (step: number) =>
                Array.from({ length: count }, (_, i) => i).findLast(
                  (i) => lo + Math.floor((i * size) / count) <= step,
                );
              const buckets = schedule.events.map((e) => bucketOf(e.step));
              check(
                JSON.stringify(buckets) === JSON.stringify(Array.from({ length: count }, (_, i) => i)),
                `buckets ${JSON.stringify(buckets)}`,
              );
              const ids = new Set<string>();
              const used = new Set<string>();
              let previous = -1;
              for (const e of schedule.events) {
                events++;
                const g = generatorByName(e.generator);
                if (!g) {
                  failed.push(`${where}: unknown generator ${e.generator}`);
                  continue;
                }
                const at = `event ${e.id} (${g.name}, step ${e.step})`;
                check(g.heldOut === (split === "heldout"), `${at}: from the wrong split`);
                check(e.step > previous, `${at}: not after step ${previous}`);
                check(e.step >= lo, `${at}: before step ${lo}`);
                check(e.step <= span - 1, `${at}: past the span ${span}`);
                check(e.step <= options.horizon - g.cost - options.buffer, `${at}: no room for recovery`);
                check(Number.isInteger(e.seed) && e.seed >= 0 && e.seed < 2 ** 32, `${at}: seed ${e.seed}`);
                if (!g.repeatable) check(!used.has(g.name), `${at}: non-repeatable generator used twice`);
                used.add(g.name);
                check(!ids.has(e.id), `${at}: duplicate id`);
                ids.add(e.id);
                previous = e.step;
              }
            }
          }
        }
      }
    }
    expect(failed).toEqual([]);
    expect(schedules).toBeGreaterThan(8000);
    expect(events).toBeGreaterThan(10000);
  });

  it("chooses only generators that fit at the step, and skips an event when none is left", () => {
    const base = generatorsOf("train")[0] as NoiseGenerator;
    const heavy: NoiseGenerator = { ...base, name: "heavy", cost: 3, repeatable: true };
    const light: NoiseGenerator = { ...base, name: "light", cost: 0, repeatable: true };
    for (let rollout = 0; rollout < 200; rollout++) {
      const schedule = sampleSchedule({
        taskId: "t",
        rollout,
        purpose: "search",
        successRate: 0.9,
        split: "train",
        options: { horizon: 6, buffer: 1 },
        generators: [heavy, light],
      });
      for (const e of schedule.events) if (e.step > 2) expect(e.generator).toBe("light");
    }
    const once: NoiseGenerator = { ...base, name: "once", cost: 0, repeatable: false };
    for (let rollout = 0; rollout < 50; rollout++) {
      const schedule = sampleSchedule({
        taskId: "t",
        rollout,
        purpose: "rl",
        successRate: 0.9,
        split: "train",
        generators: [once],
      });
      expect(schedule.events).toHaveLength(1);
    }
  });

  it("is a pure function of purpose, task, rollout and fromStep", () => {
    const args = {
      taskId: "login-user",
      rollout: 3,
      purpose: "search",
      successRate: 0.7,
      split: "train",
    } as const;
    expect(sampleSchedule(args)).toEqual(sampleSchedule({ ...args, rollout: "3" }));
    const variants = [
      sampleSchedule(args),
      sampleSchedule({ ...args, rollout: 4 }),
      sampleSchedule({ ...args, purpose: "rl" }),
      sampleSchedule({ ...args, taskId: "click-button" }),
      sampleSchedule({ ...args, fromStep: 1 }),
    ].map((s) => JSON.stringify(s.events));
    expect(new Set(variants).size).toBe(variants.length);
  });

  it("bad options are a UserError naming the field", () => {
    expect(() =>
      sampleSchedule({
        taskId: "t",
        rollout: 0,
        purpose: "search",
        successRate: 0.5,
        split: "train",
        options: { horizon: 0 },
      }),
    ).toThrow(/options\.horizon/);
    expect(() => parseScheduleOptions({ bogus: 1 } as unknown as ScheduleOptionsInput)).toThrow(UserError);
  });
});

describe("evaluationSchedule", () => {
  it("has exactly one held-out event, within range and with room for recovery", () => {
    for (const [o, input] of OPTION_SETS.entries()) {
      const options = parseScheduleOptions(input);
      const span = options.span ?? options.horizon;
      for (let t = 0; t < 60; t++) {
        const schedule = evaluationSchedule({ taskId: `task-${t}`, options: input, seed: `s${o}` });
        expect(schedule).toMatchObject({ taskId: `task-${t}`, rollout: "*", purpose: "eval" });
        expect(schedule.events).toHaveLength(1);
        const e = schedule.events[0]!;
        const g = generatorByName(e.generator)!;
        expect(g.heldOut).toBe(true);
        expect(e.step).toBeGreaterThanOrEqual(options.protectedSteps);
        expect(e.step).toBeLessThanOrEqual(Math.max(options.protectedSteps, span - 1));
        if (span - 1 >= options.protectedSteps)
          expect(e.step).toBeLessThanOrEqual(options.horizon - g.cost - options.buffer);
      }
    }
  });

  it("still fires once when the range is empty (span 1 after protected steps)", () => {
    const schedule = evaluationSchedule({ taskId: "x", options: { span: 1, protectedSteps: 2 } });
    expect(schedule.events).toHaveLength(1);
    expect(schedule.events[0]?.step).toBe(2);
    expect(evaluationSchedule({ taskId: "x", options: { span: 1 } }).events[0]?.step).toBe(0);
  });

  it("depends on seed and task only, and varies across tasks", () => {
    expect(evaluationSchedule({ taskId: "a" })).toEqual(evaluationSchedule({ taskId: "a", seed: "0" }));
    const generators = new Set<string>();
    for (let t = 0; t < 100; t++)
      generators.add(evaluationSchedule({ taskId: `t${t}` }).events[0]!.generator);
    expect(generators.size).toBeGreaterThan(5);
  });
});

describe("schedules across processes", () => {
  it("two separate processes print exactly the in-process schedules", async () => {
    const script = join(import.meta.dirname, "print-schedules.ts");
    const expected = JSON.parse(JSON.stringify(sampleSet()));
    // The two processes run at the same time (each mostly starts up).
    const runs = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
            execFile(
              process.execPath,
              ["--import", "tsx", script],
              { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
              (error, stdout, stderr) => {
                const code = error ? (error as { code?: unknown }).code : 0;
                resolve({ status: typeof code === "number" ? code : null, stdout, stderr });
              },
            );
          }),
      ),
    );
    for (const r of runs) {
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(expected);
    }
  });
});
