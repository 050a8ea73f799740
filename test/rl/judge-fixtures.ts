import type { Task, Trajectory } from "../../src/core/index.ts";
import {
  type FixtureEntry,
  type FixtureFile,
  fixtureEntry,
  type ReplayStepInput,
  toWireMessages,
} from "../../src/llm/index.ts";
import { type JudgeOptions, JudgeOptionsSchema, judgeMessages } from "../../src/rl/judge/index.ts";

/** A judge reply with this verdict. */
export const verdict = (success: boolean, reason = success ? "reached the goal" : "did not reach the goal") =>
  JSON.stringify({ success, reason });

export const JUDGE_MODEL = "judge-model";

/**
 * Recorded judge replies: for each trajectory, the reply (or scripted sequence) to the call with each
 * seed the judge sends (evaluation k, attempt a: seed + 2k + a). Identical trajectories share one
 * request, so the first script given for it is kept.
 */
export function judgeFixtures(
  cases: ReadonlyArray<{
    task: Pick<Task, "instruction">;
    trajectory: Pick<Trajectory, "steps" | "finalObservation">;
    /** Seed offset → reply text or scripted steps (a 5xx status, ...). */
    replies: Record<number, string | ReplayStepInput[]>;
  }>,
  options: JudgeOptions = JudgeOptionsSchema.parse({}),
  model = JUDGE_MODEL,
): FixtureFile {
  const entries = new Map<string, FixtureEntry>();
  for (const c of cases) {
    const messages = toWireMessages(judgeMessages(c.task, c.trajectory, options));
    for (const [offset, reply] of Object.entries(c.replies)) {
      const request = {
        model,
        messages,
        n: 1,
        temperature: options.temperature,
        seed: options.seed + Number(offset),
      };
      const entry = fixtureEntry(request, typeof reply === "string" ? { texts: [reply] } : reply);
      if (!entries.has(entry.key)) entries.set(entry.key, entry);
    }
  }
  return { version: 1, entries: [...entries.values()] };
}

/** Replies that make the judge agree with the verifier (both evaluations give the verifier's verdict). */
export const agreeing = (success: boolean) => ({ 0: verdict(success), 2: verdict(success) });
