import type { z } from "zod";
import type { Task, TaskSuite } from "../core/index.ts";
import { formatZodIssues } from "../runner/config.ts";
import { clientError, SERVE_ERROR_CODES } from "./errors.ts";

/** `value` parsed with `schema`, or a client error with `code` naming `what` and the problems. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: string,
  what: string,
): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success)
    throw clientError(
      code,
      `invalid ${what}: ${formatZodIssues(r.error, what).slice(0, 400)}; see GET /schema for the expected shape`,
      { issues: r.error.issues.slice(0, 10).map((i) => ({ path: i.path.map(String), message: i.message })) },
    );
  return r.data;
}

/** The task a reset names (default: the suite's first), or `unknown_task` naming some known ids. */
export function resetTask(suite: TaskSuite, id: string | undefined): Task {
  const tasks = suite.list();
  const task = id === undefined ? tasks[0] : tasks.find((t) => t.id === id);
  if (task) return task;
  const known = tasks.map((t) => t.id);
  throw clientError(
    SERVE_ERROR_CODES.unknownTask,
    id === undefined
      ? `suite ${suite.name} has no tasks`
      : `reset: unknown task_id ${id.slice(0, 64)} in suite ${suite.name}; known: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", ..." : ""}`,
  );
}
