// Prints several schedules as JSON: test/noise/schedule.test.ts runs it in child processes and
// compares with the in-process result (seeds must not depend on the process).
import { evaluationSchedule, sampleSchedule } from "../../src/noise/index.ts";

export function sampleSet(): unknown[] {
  const out: unknown[] = [];
  for (const taskId of ["click-button", "login-user", "book-flight"]) {
    for (const rollout of [0, 1, "branch-7"]) {
      for (const purpose of ["search", "rl"] as const) {
        out.push(sampleSchedule({ taskId, rollout, purpose, successRate: 0.8, split: "train" }));
        out.push(
          sampleSchedule({
            taskId,
            rollout,
            purpose,
            successRate: 0.3,
            split: "train",
            fromStep: 2,
            options: { horizon: 20, span: 12, protectedSteps: 1 },
          }),
        );
      }
    }
    out.push(evaluationSchedule({ taskId, seed: "7", options: { span: 6 } }));
  }
  return out;
}

if (process.argv[1]?.endsWith("print-schedules.ts")) process.stdout.write(`${JSON.stringify(sampleSet())}\n`);
