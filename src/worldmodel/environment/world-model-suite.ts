import { type Task, type TaskSuite, UserError } from "../../core/index.ts";

/** The tag every world-model task carries beside its own. */
export const WORLDMODEL_TAG = "worldmodel";

/**
 * The suite of a worldbook: its build tasks (same ids, family, verifier, horizon), tagged
 * "worldmodel"; an unknown id is a UserError naming the known ones.
 */
export function createWorldModelSuite(name: string, family: string, tasks: ReadonlyArray<Task>): TaskSuite {
  const list: Task[] = tasks.map((t) => ({
    ...t,
    tags: t.tags.includes(WORLDMODEL_TAG) ? t.tags : [...t.tags, WORLDMODEL_TAG],
  }));
  const byId = new Map(list.map((t) => [t.id, t]));
  return {
    name,
    family,
    list: () => list,
    get(id) {
      const task = byId.get(id);
      if (task) return task;
      throw new UserError(
        "task.unknown",
        `the worldbook of suite ${name} has no task "${id}"; its tasks are ${[...byId.keys()].join(", ") || "(none)"} (a world model plays only the tasks it has traces of)`,
        { details: { taskId: id, known: [...byId.keys()] } },
      );
    },
  };
}
