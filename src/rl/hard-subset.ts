import { type Environment, EnvironmentError, type Task } from "../core/index.ts";
import { measureSpan } from "../noise/index.ts";

/** A task is in the hard subset when its oracle needs at least this many steps (SEEDS.md §4). */
export const HARD_MIN_STEPS = 5;

/** hard (oracle ≥ 5 steps), easy (fewer), unknown (no oracle, or the oracle did not solve it). */
export type Difficulty = "hard" | "easy" | "unknown";
export const DIFFICULTIES: ReadonlyArray<Difficulty> = ["hard", "easy", "unknown"];

/** The subset of a task whose oracle took `steps` (null: no measured length, so unknown — never easy). */
export function difficultyOf(steps: number | null | undefined, minSteps = HARD_MIN_STEPS): Difficulty {
  if (steps === null || steps === undefined) return "unknown";
  return steps >= minSteps ? "hard" : "easy";
}

/**
 * Each task's oracle length: the environment's oracle played for at most `maxSteps` actions, first
 * from the task's group seed (the members' initial state), then — when it did not solve the task (on
 * slippery ice a slide can drop it in a hole) — from `seedOf(task, 1)`, … up to `attempts` plays. The
 * length is the actions of the first play the verifier calls a success; null (unknown) when the task
 * or environment has no oracle, no play solved it, or the environment failed while it played. Tasks
 * do not declare a length.
 */
export async function measureOracleLengths(
  env: Environment,
  tasks: ReadonlyArray<Task>,
  seedOf: (taskId: string, attempt: number) => number,
  maxSteps: number,
  attempts = 3,
): Promise<Record<string, number | null>> {
  const lengths: Record<string, number | null> = {};
  for (const task of tasks) {
    lengths[task.id] = null;
    if (!task.oracle || !env.oracleAction) continue;
    for (let attempt = 0; attempt < attempts && lengths[task.id] === null; attempt++) {
      try {
        const steps = await measureSpan(env, task.id, seedOf(task.id, attempt), maxSteps);
        if ((await env.evaluate()).success) lengths[task.id] = steps;
      } catch (e) {
        if (!(e instanceof EnvironmentError)) throw e;
        break;
      }
    }
  }
  return lengths;
}
