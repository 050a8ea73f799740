import type { Environment, Task } from "../core/index.ts";
import {
  buildEvaluationScheduleFile,
  measureSpan,
  type NoiseScheduleFile,
  type ScheduleOptions,
} from "../noise/index.ts";
import { episodeSeed } from "../rollout/index.ts";

/**
 * The evaluation schedule of `tasks`: each task's span is `options.span` when given, else the length
 * of its oracle solution on the first evaluation episode's seed (capped by the horizon).
 */
export async function evaluationScheduleFor(
  env: Environment,
  tasks: ReadonlyArray<Task>,
  seed: string,
  options: ScheduleOptions,
): Promise<NoiseScheduleFile> {
  const taskSpans: Array<{ taskId: string; span: number }> = [];
  for (const task of tasks) {
    const span =
      options.span ??
      (await measureSpan(
        env,
        task.id,
        episodeSeed(seed, task.id, 0),
        Math.min(task.maxSteps ?? options.horizon, options.horizon),
      ));
    taskSpans.push({ taskId: task.id, span });
  }
  return buildEvaluationScheduleFile({ taskSpans, seed, options });
}
