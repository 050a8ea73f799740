import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Action, Environment, Observation, StepResult } from "../../src/core/index.ts";
import { UserError } from "../../src/core/index.ts";
import {
  buildEvaluationScheduleFile,
  evaluationSchedule,
  generatorsOf,
  measureSpan,
  type NoiseScheduleFile,
  readScheduleFile,
  writeScheduleFile,
} from "../../src/noise/index.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-noise-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const taskSpans = [
  { taskId: "click-button", span: 1 },
  { taskId: "login-user", span: 4 },
  { taskId: "book-flight", span: 11 },
];

function build(): NoiseScheduleFile {
  return buildEvaluationScheduleFile({ taskSpans, seed: "42", options: { horizon: 15, protectedSteps: 0 } });
}

function expectUserError(fn: () => unknown, code: string, ...fragments: Array<string | RegExp>): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(UserError);
  expect((error as UserError).code).toBe(code);
  for (const f of fragments) expect((error as UserError).message).toMatch(f);
}

describe("evaluation schedule file", () => {
  it("builds one held-out event per task from evaluationSchedule with the task's span", () => {
    const file = build();
    expect(file).toMatchObject({
      kind: "rehearsal.noise-schedule",
      version: 1,
      purpose: "eval",
      split: "heldout",
    });
    expect(file.options).toEqual({ horizon: 15, protectedSteps: 0, buffer: 1 });
    expect(file.tasks.map((t) => [t.taskId, t.span])).toEqual(taskSpans.map((t) => [t.taskId, t.span]));
    for (const t of file.tasks) {
      expect(t.events).toEqual(
        evaluationSchedule({ taskId: t.taskId, seed: "42", options: { span: t.span } }).events,
      );
    }
  });

  it("round trips through write and read; writing is byte-stable and leaves no temporary file", () => {
    const path = join(dir, "sub", "schedule.json");
    const file = build();
    writeScheduleFile(path, file);
    const first = readFileSync(path, "utf8");
    expect(first.endsWith("}\n")).toBe(true);
    expect(first.indexOf('"kind"')).toBeLessThan(first.indexOf('"tasks"'));
    expect(readScheduleFile(path)).toEqual(file);
    writeScheduleFile(path, readScheduleFile(path));
    expect(readFileSync(path, "utf8")).toBe(first);
    expect(readdirSync(join(dir, "sub"))).toEqual(["schedule.json"]);
  });

  it("a missing file is noise.schedule_missing", () => {
    expectUserError(() => readScheduleFile(join(dir, "nope.json")), "noise.schedule_missing", "nope.json");
  });

  it("bad JSON is noise.schedule_invalid naming the file and the fix", () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, "{ not json");
    expectUserError(
      () => readScheduleFile(path),
      "noise.schedule_invalid",
      "bad.json",
      "not valid JSON",
      "rehearsal noise schedule",
    );
  });

  const mutate = (name: string, change: (f: NoiseScheduleFile) => void): string => {
    const file = structuredClone(build());
    change(file);
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(file));
    return path;
  };

  it("an unknown generator names the field path", () => {
    const path = mutate("unknown.json", (f) => {
      f.tasks[1]!.events[0]!.generator = "no-such-generator";
    });
    expectUserError(
      () => readScheduleFile(path),
      "noise.schedule_invalid",
      "unknown.json",
      "tasks.1.events.0.generator",
      "no-such-generator",
      "rehearsal noise schedule",
    );
  });

  it("a train generator in an eval file is refused", () => {
    const train = generatorsOf("train")[0]!.name;
    const path = mutate("train.json", (f) => {
      f.tasks[0]!.events[0]!.generator = train;
    });
    expectUserError(
      () => readScheduleFile(path),
      "noise.schedule_invalid",
      "tasks.0.events.0.generator",
      /held-out/,
    );
  });

  it("two events (or none) for one task are refused", () => {
    const two = mutate("two.json", (f) => {
      const e = f.tasks[2]!.events[0]!;
      f.tasks[2]!.events.push({ ...e, id: "n9-1", step: 9 });
    });
    expectUserError(
      () => readScheduleFile(two),
      "noise.schedule_invalid",
      "tasks.2.events",
      /exactly one event/,
    );
    const none = mutate("none.json", (f) => {
      f.tasks[0]!.events = [];
    });
    expectUserError(() => readScheduleFile(none), "noise.schedule_invalid", "tasks.0.events");
  });

  it("wrong kind, purpose, duplicate tasks and extra fields are refused", () => {
    const kind = mutate("kind.json", (f) => {
      (f as { kind: string }).kind = "something-else";
    });
    expectUserError(() => readScheduleFile(kind), "noise.schedule_invalid", "kind");
    const purpose = mutate("purpose.json", (f) => {
      (f as { purpose: string }).purpose = "search";
    });
    expectUserError(() => readScheduleFile(purpose), "noise.schedule_invalid", "purpose");
    const dup = mutate("dup.json", (f) => {
      f.tasks.push(structuredClone(f.tasks[0]!));
    });
    expectUserError(
      () => readScheduleFile(dup),
      "noise.schedule_invalid",
      "tasks.3.taskId",
      "more than once",
    );
    const extra = mutate("extra.json", (f) => {
      (f as unknown as Record<string, unknown>).extra = 1;
    });
    expectUserError(() => readScheduleFile(extra), "noise.schedule_invalid", "extra");
  });

  it("writing an invalid file is refused before anything is written", () => {
    const file = structuredClone(build());
    file.tasks[0]!.events[0]!.generator = "no-such-generator";
    const path = join(dir, "never.json");
    expectUserError(
      () => writeScheduleFile(path, file),
      "noise.schedule_invalid",
      "tasks.0.events.0.generator",
    );
    expectUserError(() => readScheduleFile(path), "noise.schedule_missing");
  });
});

/** A counter environment: the oracle says "next" until the count reaches `length`. */
function counterEnv(length: number, withOracle = true): Environment & { resets: number } {
  let count = 0;
  const obs = (): Observation => ({ text: String(count) }) as unknown as Observation;
  const env = {
    family: "counter",
    capabilities: { snapshot: false, replay: true, deterministic: true },
    suite: {} as Environment["suite"],
    resets: 0,
    async reset() {
      count = 0;
      env.resets++;
      return obs();
    },
    async step(_action: Action): Promise<StepResult> {
      count++;
      return { observation: obs(), reward: 0, terminated: count >= length, truncated: false, info: {} };
    },
    async evaluate() {
      return { reward: 0, success: false, reason: "", metrics: {} } as never;
    },
    async fingerprint() {
      return String(count);
    },
    async close() {},
    ...(withOracle
      ? { oracleAction: async (): Promise<Action | null> => ({ type: "done" }) as unknown as Action }
      : {}),
  };
  return env;
}

describe("measureSpan", () => {
  it("follows the oracle until the episode ends, capped at maxSteps, at least 1", async () => {
    expect(await measureSpan(counterEnv(4), "t", 1, 15)).toBe(4);
    expect(await measureSpan(counterEnv(40), "t", 1, 15)).toBe(15);
    expect(await measureSpan(counterEnv(1), "t", 1, 15)).toBe(1);
    const noOracle = counterEnv(4, false);
    expect(await measureSpan(noOracle, "t", 1, 12)).toBe(12);
    expect(noOracle.resets).toBe(0);
  });

  it("an oracle that has no action at the start still gives a span of 1", async () => {
    const env = { ...counterEnv(5), oracleAction: async () => null };
    expect(await measureSpan(env, "t", 1, 15)).toBe(1);
  });
});
