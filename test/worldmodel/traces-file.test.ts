import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import { readTraceFile, type TraceStep, writeTraceFile } from "../../src/worldmodel/index.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-trace-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function step(episodeId: string, index: number, extra: Partial<TraceStep> = {}): TraceStep {
  return {
    episodeId,
    taskId: "4x4",
    family: "frozenlake",
    seed: 3,
    step: index,
    observation: { text: `at ${index}`, stateKey: `k${index}` },
    action: { type: "move", direction: "right" },
    nextObservation: { text: `at ${index + 1}`, stateKey: `k${index + 1}` },
    reward: 0,
    terminated: false,
    truncated: false,
    state: { "agent.col": index, "cell.0.0": "S", list: [1, "a", null, true] },
    nextState: { "agent.col": index + 1 },
    source: "run:run_1",
    ...extra,
  };
}

const trace = [
  step("e1", 0),
  step("e1", 1, { reward: 1, terminated: true }),
  step("e2", 0, { truncated: true }),
];
const lineOf = (s: unknown) => `${JSON.stringify(s)}\n`;

/** The UserError `readTraceFile` throws for a file with these lines. */
function readError(name: string, text: string): UserError {
  const file = join(dir, name);
  writeFileSync(file, text);
  try {
    readTraceFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error(`${name} was read without an error`);
}

describe("trace files", () => {
  it("round trip: write then read gives the same steps, one JSON line each", () => {
    const file = join(dir, "sub", "trace.jsonl");
    expect(writeTraceFile(file, trace)).toBe(file);
    expect(readTraceFile(file)).toEqual(trace);
    expect(readFileSync(file, "utf8")).toBe(trace.map(lineOf).join(""));
    // A last line without its newline is accepted when it is whole.
    const noNewline = join(dir, "no-newline.jsonl");
    writeFileSync(noNewline, trace.map(lineOf).join("").trimEnd());
    expect(readTraceFile(noNewline)).toEqual(trace);
    const empty = join(dir, "empty.jsonl");
    writeTraceFile(empty, []);
    expect(readFileSync(empty, "utf8")).toBe("");
    expect(readTraceFile(empty)).toEqual([]);
  });

  it("a cut-off last line is an error naming the file and the line, never dropped", () => {
    const whole = trace.map(lineOf).join("");
    const error = readError("truncated.jsonl", whole.slice(0, whole.length - 20));
    expect(error.code).toBe("trace.invalid");
    expect(error.message).toContain("truncated.jsonl, line 3");
    expect(error.message).toContain("cut off");
    expect(error.message).toContain("Fix:");
  });

  it("bad JSON, a schema issue, a blank line: trace.invalid with the line and the zod issue", () => {
    const good = lineOf(trace[0]);
    const bad = readError("bad-json.jsonl", `${good}{"episodeId": \n`);
    expect(bad.message).toContain("line 2: not valid JSON");
    const { reward: _r, ...noReward } = step("e1", 1);
    const schema = readError("schema.jsonl", good + lineOf(noReward));
    expect(schema.code).toBe("trace.invalid");
    expect(schema.message).toContain("line 2: not a trace step (reward:");
    const extra = readError("extra.jsonl", lineOf({ ...trace[0], comment: "x" }));
    expect(extra.message).toContain("line 1: not a trace step");
    expect(extra.message).toContain("comment");
    const wrongType = readError("type.jsonl", lineOf({ ...trace[0], step: -1 }));
    expect(wrongType.message).toContain("step:");
    const blank = readError("blank.jsonl", `${good}\n${lineOf(step("e1", 1))}`);
    expect(blank.message).toContain("line 2: blank line");
  });

  it("the steps of an episode must be contiguous and numbered 0..n-1 in one task", () => {
    const gap = readError("gap.jsonl", [step("e1", 0), step("e1", 2)].map(lineOf).join(""));
    expect(gap.message).toContain("line 2: episode e1 has step 2 after step 0");
    const late = readError("late.jsonl", [step("e1", 1)].map(lineOf).join(""));
    expect(late.message).toContain("line 1: episode e1 starts at step 1");
    const split = readError(
      "interleaved.jsonl",
      [step("e1", 0), step("e2", 0), step("e1", 1)].map(lineOf).join(""),
    );
    expect(split.message).toContain("line 3: episode e1 appears again");
    const task = readError(
      "task.jsonl",
      [step("e1", 0), step("e1", 1, { taskId: "8x8" })].map(lineOf).join(""),
    );
    expect(task.message).toContain("line 2: episode e1 changes task");
    for (const e of [gap, late, split, task]) expect(e.code).toBe("trace.invalid");
  });

  it("writing refuses invalid steps and leaves the old file; a failed write leaves no temporary file", () => {
    const file = join(dir, "keep.jsonl");
    writeTraceFile(file, trace);
    const before = readFileSync(file, "utf8");
    expect(() => writeTraceFile(file, [step("e1", 0), step("e1", 0)])).toThrow(
      /step 1: episode e1 has step 0/,
    );
    expect(() => writeTraceFile(file, [{ ...step("e1", 0), reward: "1" } as unknown as TraceStep])).toThrow(
      /step 0 is not a trace step \(reward:/,
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    // The directory is a file: the write fails as a user error naming the path.
    const blocker = join(dir, "blocker");
    writeFileSync(blocker, "x");
    expect(() => writeTraceFile(join(blocker, "t.jsonl"), trace)).toThrow(/writing trace file .*blocker/);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("a missing file is a user error naming it", () => {
    expect(() => readTraceFile(join(dir, "nope.jsonl"))).toThrow(/reading trace file .*nope\.jsonl/);
  });
});
