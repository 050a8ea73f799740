import type { Random } from "../../../core/random.ts";
import type { Split } from "../../../core/task.ts";
import type { FsView } from "../state-view.ts";

/** The home directory every terminal episode starts in. */
export const HOME = "/home/user";

/** A seeded instance of a task: the starting files, the instruction, and how to solve it. */
export interface TaskWorld {
  instruction: string;
  /** Absolute path → text. Parent directories are created. */
  files: Record<string, string>;
  /** Empty directories to create as well. */
  dirs?: string[];
  /** Commands that solve this instance from the start (the oracle then answers `done`). */
  oracle: string[];
  /** The answer `done` must carry, when the task asks a question. */
  answer?: string;
  /** Whatever the checks need (targets, kept files, expected contents). */
  expect: Record<string, unknown>;
}

/** One verified property of the final state. A failed gate scores the whole episode 0. */
export interface Check {
  name: string;
  ok: boolean;
  gate?: boolean;
}

export type TerminalTier = "short" | "long";

/** A built-in terminal task: a seeded world builder plus checks over the final file system. */
export interface TerminalTaskSpec {
  id: string;
  tier: TerminalTier;
  split: Split;
  /** One line that describes the task family (the seeded instruction is in the observation). */
  summary: string;
  maxSteps: number;
  tags: string[];
  build(random: Random): TaskWorld;
  check(view: FsView, world: TaskWorld, answer: string | undefined): Check[];
}
