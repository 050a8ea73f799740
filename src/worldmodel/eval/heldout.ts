import { type StateRecord, type StateViewer, type Task, UserError } from "../../core/index.ts";
import type { TraceStep } from "../trace.ts";
import type { Worldbook } from "../worldbook/schema.ts";

/** A held-out transition ready to score: its task and its real states before and after. */
export interface HeldoutTransition {
  step: TraceStep;
  task: Task | undefined;
  before: StateRecord;
  after: StateRecord;
}

/** Tasks by id: the caller's first, then the worldbook's. */
export function taskIndex(book: Worldbook, tasks: ReadonlyArray<Task> = []): Map<string, Task> {
  const out = new Map(book.tasks.map((t) => [t.id, t]));
  for (const t of tasks) out.set(t.id, t);
  return out;
}

/**
 * The real states of a held-out step: its recorded `state`/`nextState`, else the viewer's view of its
 * observations (with the task, when known).
 */
export function heldoutTransition(
  step: TraceStep,
  tasks: ReadonlyMap<string, Task>,
  viewer: StateViewer | undefined,
): HeldoutTransition {
  const task = tasks.get(step.taskId);
  const before = step.state ?? viewer?.view(step.observation, task);
  const after = step.nextState ?? viewer?.view(step.nextObservation, task);
  if (before === undefined || after === undefined) {
    throw new UserError(
      "worldmodel_eval.no_state",
      `evaluating a world model: held-out step ${step.step} of episode "${step.episodeId}" (${step.source}) has no state and no viewer was given. Fix: import the traces with the "${step.family}" state viewer or pass one.`,
    );
  }
  return { step, task, before, after };
}

/** Steps grouped by episode (episodes in first-seen order, steps by index). */
export function episodesOf(steps: ReadonlyArray<TraceStep>): TraceStep[][] {
  const byEpisode = new Map<string, TraceStep[]>();
  for (const s of steps) {
    const list = byEpisode.get(s.episodeId);
    if (list) list.push(s);
    else byEpisode.set(s.episodeId, [s]);
  }
  return [...byEpisode.values()].map((list) => [...list].sort((a, b) => a.step - b.step));
}
