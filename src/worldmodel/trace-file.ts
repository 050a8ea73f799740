import { mkdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { z } from "zod";
import {
  EnvironmentError,
  formatIssues,
  type RehearsalError,
  readTextFile,
  UserError,
} from "../core/index.ts";
import { fsyncDirectory, writeFileDurably } from "../store/artefact-files.ts";
import { type TraceStep, TraceStepSchema } from "./trace.ts";

/** The code of every refused trace: a line that is not a TraceStep, or episodes out of order. */
export const TRACE_INVALID = "trace.invalid";

const FIX_FORMAT = "see docs/traces.md for the format, or re-import the trace from its runs";

function issuesText(error: z.ZodError): string {
  return formatIssues(error.issues, { top: "(line)" });
}

/** Where a step of a trace is: a file line, or an index in an array of steps. */
type Locate = (index: number) => string;

/**
 * Checks that the steps of every episode are contiguous and numbered 0..n-1, and keep one task and
 * family; throws a `trace.invalid` UserError naming the first offending step.
 */
export function checkTraceEpisodes(steps: ReadonlyArray<TraceStep>, where: string, locate: Locate): void {
  const finished = new Set<string>();
  let current: TraceStep | undefined;
  steps.forEach((step, i) => {
    const fail = (problem: string, fix: string) => {
      throw new UserError(TRACE_INVALID, `${where}: ${locate(i)}: ${problem}. Fix: ${fix}`, {
        details: { where, index: i, episodeId: step.episodeId },
      });
    };
    if (current && current.episodeId === step.episodeId) {
      if (step.step !== current.step + 1)
        fail(
          `episode ${step.episodeId} has step ${step.step} after step ${current.step}; steps of an episode are numbered 0, 1, 2, ...`,
          "write every step of the episode once, in order",
        );
      if (step.taskId !== current.taskId || step.family !== current.family)
        fail(
          `episode ${step.episodeId} changes task from ${current.family}/${current.taskId} to ${step.family}/${step.taskId}`,
          "give each episode one taskId and family",
        );
    } else {
      if (current) finished.add(current.episodeId);
      if (finished.has(step.episodeId))
        fail(
          `episode ${step.episodeId} appears again after other episodes; the steps of an episode must be contiguous`,
          "keep the lines of each episode together",
        );
      if (step.step !== 0)
        fail(
          `episode ${step.episodeId} starts at step ${step.step}; an episode starts at step 0`,
          "include the episode's first steps, or drop the episode",
        );
    }
    current = step;
  });
}

/**
 * Reads a JSONL trace file (docs/traces.md): one TraceStep per line. Any line that is not a TraceStep
 * (bad JSON, a cut-off last line, a schema issue), a blank line, or episodes out of order is a
 * `trace.invalid` UserError naming the file, the line and the fix; nothing is dropped silently.
 */
export function readTraceFile(path: string): TraceStep[] {
  const text = readTextFile(
    path,
    (error) =>
      new UserError(
        "trace.unreadable",
        `reading trace file ${path} failed (${error.message}). Fix: check the path`,
        { cause: error, details: { path } },
      ),
  );
  const lines = text.split("\n");
  const endsWithNewline = lines.at(-1) === "";
  if (endsWithNewline) lines.pop();
  const invalid = (line: number, problem: string, fix = FIX_FORMAT) =>
    new UserError(TRACE_INVALID, `trace file ${path}, line ${line}: ${problem}. Fix: ${fix}`, {
      details: { path, line },
    });
  const steps = lines.map((raw, i) => {
    const line = i + 1;
    const last = i === lines.length - 1;
    if (raw.trim() === "")
      throw invalid(line, "blank line; every line holds one step", "remove the blank line");
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (last && !endsWithNewline)
        throw invalid(
          line,
          `the last line is cut off (no final newline, not valid JSON: ${reason}); the file was truncated`,
          "write the trace again (writeTraceFile is atomic), or remove the partial line",
        );
      throw invalid(line, `not valid JSON (${reason})`);
    }
    const parsed = TraceStepSchema.safeParse(json);
    if (!parsed.success) throw invalid(line, `not a trace step (${issuesText(parsed.error)})`);
    return parsed.data;
  });
  checkTraceEpisodes(steps, `trace file ${path}`, (i) => `line ${i + 1}`);
  return steps;
}

/** The JSONL text of `steps`: one step per line, each ending in a newline. */
export function formatTraceLines(steps: ReadonlyArray<TraceStep>): string {
  return steps.map((s) => `${JSON.stringify(s)}\n`).join("");
}

function writeFailure(path: string, error: unknown): RehearsalError {
  const errno = (error as NodeJS.ErrnoException).code ?? "unknown";
  const reason = error instanceof Error ? error.message : String(error);
  const details = { path, errno };
  if (["ENOSPC", "EDQUOT", "EFBIG", "EIO"].includes(errno))
    return new EnvironmentError(
      "trace.write_failed",
      `writing trace file ${path} failed (${reason}); the file is unchanged. Fix: free space on that disk or write elsewhere`,
      { cause: error, details },
    );
  return new UserError(
    "trace.write_failed",
    `writing trace file ${path} failed (${reason}); the file is unchanged. Fix: choose a path in a directory you can write to`,
    { cause: error, details },
  );
}

let tempCounter = 0;

/**
 * Writes `steps` as a JSONL trace file atomically: a temporary file beside the target, fsynced and
 * renamed over it, so a reader sees the old file or the whole new one. The steps are validated first
 * (schema and episode order, as `readTraceFile` checks them); returns the absolute path written.
 */
export function writeTraceFile(path: string, steps: ReadonlyArray<TraceStep>): string {
  const target = resolve(path);
  const valid = steps.map((step, i) => {
    const parsed = TraceStepSchema.safeParse(step);
    if (!parsed.success)
      throw new UserError(
        TRACE_INVALID,
        `writing trace file ${target}: step ${i} is not a trace step (${issuesText(parsed.error)}). Fix: ${FIX_FORMAT}`,
        { details: { path: target, index: i } },
      );
    return parsed.data;
  });
  checkTraceEpisodes(valid, `writing trace file ${target}`, (i) => `step ${i}`);
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.${process.pid}-${++tempCounter}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileDurably(target, temp, Buffer.from(formatTraceLines(valid), "utf8"));
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Already failing (e.g. the directory is not one); the write error below is the one to report.
    }
    throw writeFailure(target, error);
  }
  fsyncDirectory(dir);
  return target;
}
