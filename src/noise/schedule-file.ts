import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { type Environment, formatIssues, readJsonFile, UserError } from "../core/index.ts";
import { generatorByName } from "./catalog.ts";
import {
  evaluationSchedule,
  parseScheduleOptions,
  ScheduledEventSchema,
  type ScheduleOptionsInput,
  ScheduleOptionsSchema,
} from "./schedule.ts";

/**
 * The precomputed evaluation schedule file: one held-out event per task, computed once and shared by
 * every evaluated policy (common random numbers, SEEDS.md §1). `options` holds the placement options
 * the events were drawn with (the span is per task, in `tasks[].span`).
 */
export const NoiseScheduleFileSchema = z
  .object({
    kind: z.literal("rehearsal.noise-schedule"),
    version: z.literal(1),
    purpose: z.literal("eval"),
    split: z.literal("heldout"),
    seed: z.string(),
    options: ScheduleOptionsSchema,
    tasks: z.array(
      z
        .object({
          taskId: z.string().min(1),
          span: z.number().int().positive(),
          events: z.array(ScheduledEventSchema),
        })
        .strict(),
    ),
  })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.tasks.forEach((task, i) => {
      if (seen.has(task.taskId)) {
        ctx.addIssue({
          code: "custom",
          path: ["tasks", i, "taskId"],
          message: `task ${task.taskId} appears more than once`,
        });
      }
      seen.add(task.taskId);
      if (task.events.length !== 1) {
        ctx.addIssue({
          code: "custom",
          path: ["tasks", i, "events"],
          message: `an evaluation schedule has exactly one event per task, task ${task.taskId} has ${task.events.length}`,
        });
      }
      task.events.forEach((event, j) => {
        const g = generatorByName(event.generator);
        if (!g) {
          ctx.addIssue({
            code: "custom",
            path: ["tasks", i, "events", j, "generator"],
            message: `unknown generator "${event.generator}" (see \`rehearsal noise list\`)`,
          });
        } else if (!g.heldOut) {
          ctx.addIssue({
            code: "custom",
            path: ["tasks", i, "events", j, "generator"],
            message: `generator "${event.generator}" is a train generator; evaluation uses held-out generators only`,
          });
        }
      });
    });
  });
export type NoiseScheduleFile = z.output<typeof NoiseScheduleFileSchema>;
export type NoiseScheduleFileInput = z.input<typeof NoiseScheduleFileSchema>;

const REGENERATE = "regenerate it with `rehearsal noise schedule --tasks ... --out FILE`";

/**
 * Builds the evaluation schedule file: for every task, {@link evaluationSchedule} with the task's
 * measured span (one held-out event, seeded by `noise-eval|seed|taskId`).
 */
export function buildEvaluationScheduleFile(args: {
  taskSpans: ReadonlyArray<{ taskId: string; span: number }>;
  seed: string;
  options?: ScheduleOptionsInput;
}): NoiseScheduleFile {
  const { span: _span, ...options } = parseScheduleOptions(args.options);
  const tasks = args.taskSpans.map(({ taskId, span }) => {
    if (!Number.isInteger(span) || span < 1) {
      throw new UserError(
        "noise.options_invalid",
        `span of task ${taskId} must be a whole number ≥ 1, got ${span}`,
      );
    }
    const schedule = evaluationSchedule({ taskId, seed: args.seed, options: { ...options, span } });
    return { taskId, span, events: schedule.events };
  });
  return NoiseScheduleFileSchema.parse({
    kind: "rehearsal.noise-schedule",
    version: 1,
    purpose: "eval",
    split: "heldout",
    seed: args.seed,
    options,
    tasks,
  });
}

/**
 * Writes a schedule file atomically (a temporary file, then rename) as pretty JSON with a stable key
 * order (the schema's) and a final newline. The file is validated first.
 */
export function writeScheduleFile(path: string, file: NoiseScheduleFileInput): void {
  const r = NoiseScheduleFileSchema.safeParse(file);
  if (!r.success) {
    throw new UserError(
      "noise.schedule_invalid",
      `cannot write noise schedule ${path}: ${formatIssues(r.error.issues, { top: "(file)" })}`,
      {
        details: { issues: r.error.issues },
      },
    );
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(r.data, null, 2)}\n`);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new UserError(
      "noise.schedule_unwritable",
      `cannot write noise schedule ${path}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
}

/**
 * Reads and validates a schedule file. A missing file is `noise.schedule_missing`; bad JSON or a field
 * that does not validate is `noise.schedule_invalid`, naming the file, the field path and the fix.
 */
export function readScheduleFile(path: string): NoiseScheduleFile {
  if (!existsSync(path)) {
    throw new UserError(
      "noise.schedule_missing",
      `noise schedule file ${path} does not exist; create it with \`rehearsal noise schedule --tasks ... --out ${path}\``,
    );
  }
  const notJson = (e: Error) =>
    new UserError(
      "noise.schedule_invalid",
      `noise schedule file ${path} is not valid JSON: ${e.message}; ${REGENERATE}`,
      { cause: e },
    );
  return readJsonFile(path, NoiseScheduleFileSchema, {
    unreadable: notJson,
    syntax: notJson,
    invalid: (error) =>
      new UserError(
        "noise.schedule_invalid",
        `noise schedule file ${path} is invalid: ${formatIssues(error.issues, { top: "(file)" })}; ${REGENERATE}`,
        { details: { issues: error.issues } },
      ),
  });
}

/**
 * The expected episode length of a task: resets with `seed` and follows `env.oracleAction()` until the
 * episode ends (terminated, truncated, no oracle action, or `maxSteps` actions). Returns the number
 * of actions, at least 1; `maxSteps` when the environment has no oracle.
 */
export async function measureSpan(
  env: Environment,
  taskId: string,
  seed: number,
  maxSteps: number,
): Promise<number> {
  if (!env.oracleAction) return maxSteps;
  await env.reset({ taskId, seed });
  let steps = 0;
  while (steps < maxSteps) {
    const action = await env.oracleAction();
    if (action === null) break;
    const result = await env.step(action);
    steps++;
    if (result.terminated || result.truncated) break;
  }
  return Math.max(1, steps);
}
