import { type Observation, type StateViewer, type Task, type Trajectory, UserError } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import type { TraceStep } from "./trace.ts";

export interface ImportTracesOptions {
  /** Fills `state`/`nextState` with `viewer.view(observation, task)`; every task must be of its family. */
  viewer?: StateViewer;
  /** Tasks to use where a run did not record its tasks in the store (matched by id). */
  tasks?: ReadonlyArray<Task>;
}

/** What one run gave: complete trajectories imported, the others skipped and counted. */
export interface RunImportCounts {
  runId: string;
  /** Complete trajectories turned into trace episodes (those with at least one parsed action). */
  episodes: number;
  steps: number;
  /** Trajectories that ended in an infrastructure failure (never a transition of the environment). */
  skippedInfraFailed: number;
  /** Trajectories aborted or still running. */
  skippedUnfinished: number;
  /** Steps whose policy output did not parse: the environment was not stepped, so no transition. */
  skippedUnparsedSteps: number;
}

export interface ImportTracesResult {
  steps: TraceStep[];
  runs: RunImportCounts[];
}

/** The trace steps of one complete trajectory, numbered 0..n-1 over the steps with an action. */
function trajectorySteps(
  trajectory: Trajectory,
  task: Task,
  viewer: StateViewer | undefined,
): { steps: TraceStep[]; unparsed: number } {
  const steps: TraceStep[] = [];
  let unparsed = 0;
  trajectory.steps.forEach((record, i) => {
    if (record.action === null) {
      unparsed++;
      return;
    }
    const nextObservation: Observation | undefined =
      trajectory.steps[i + 1]?.observation ?? trajectory.finalObservation;
    if (!nextObservation)
      throw new UserError(
        "trace.incomplete_trajectory",
        `importing traces: trajectory ${trajectory.id} of run ${trajectory.runId} has no observation after step ${record.index}. Fix: re-record the run`,
        { details: { runId: trajectory.runId, trajectoryId: trajectory.id, step: record.index } },
      );
    steps.push({
      episodeId: trajectory.id,
      taskId: trajectory.taskId,
      family: task.family,
      seed: trajectory.seed,
      step: steps.length,
      observation: record.observation,
      action: record.action,
      nextObservation,
      reward: record.reward,
      terminated: record.terminated,
      truncated: record.truncated,
      ...(viewer
        ? { state: viewer.view(record.observation, task), nextState: viewer.view(nextObservation, task) }
        : {}),
      source: `run:${trajectory.runId}`,
    });
  });
  return { steps, unparsed };
}

/**
 * Turns every complete trajectory of the runs into TraceSteps, runs in the order given and episodes in
 * episode order (deterministic). Infra-failed, aborted and running trajectories are skipped and counted.
 * An unknown or repeated run id, a task the store does not know, or a task of another family than the
 * viewer's is a UserError naming it.
 */
export function importTraces(
  store: RunStore,
  runIds: ReadonlyArray<string>,
  options: ImportTracesOptions = {},
): ImportTracesResult {
  const seen = new Set<string>();
  for (const runId of runIds) {
    if (seen.has(runId))
      throw new UserError(
        "trace.duplicate_run",
        `importing traces: run ${runId} is listed twice. Fix: name each run once`,
        { details: { runId } },
      );
    seen.add(runId);
    if (!store.getRun(runId))
      throw new UserError(
        "trace.unknown_run",
        `importing traces: no run ${runId} in the store. Fix: list the runs with 'rehearsal runs list'`,
        { details: { runId } },
      );
  }
  const steps: TraceStep[] = [];
  const runs: RunImportCounts[] = [];
  for (const runId of runIds) {
    const tasks = new Map((options.tasks ?? []).map((t) => [t.id, t]));
    for (const t of store.listTasks(runId)) tasks.set(t.id, t);
    const counts: RunImportCounts = {
      runId,
      episodes: 0,
      steps: 0,
      skippedInfraFailed: 0,
      skippedUnfinished: 0,
      skippedUnparsedSteps: 0,
    };
    for (const header of store.listTrajectories(runId)) {
      if (header.status === "infra_failed") counts.skippedInfraFailed++;
      else if (header.status !== "complete") counts.skippedUnfinished++;
    }
    for (const trajectory of store.iterateTrajectories(runId, { status: "complete" })) {
      const task = tasks.get(trajectory.taskId);
      if (!task)
        throw new UserError(
          "trace.unknown_task",
          `importing traces: run ${runId} did not record task ${trajectory.taskId} (trajectory ${trajectory.id}). Fix: pass the task in options.tasks`,
          { details: { runId, taskId: trajectory.taskId } },
        );
      if (options.viewer && options.viewer.family !== task.family)
        throw new UserError(
          "trace.viewer_family",
          `importing traces: task ${task.id} of run ${runId} is ${task.family}, the state viewer reads ${options.viewer.family}. Fix: import runs of one family per viewer`,
          { details: { runId, taskId: task.id, family: task.family, viewer: options.viewer.family } },
        );
      const episode = trajectorySteps(trajectory, task, options.viewer);
      if (episode.steps.length > 0) counts.episodes++;
      counts.steps += episode.steps.length;
      counts.skippedUnparsedSteps += episode.unparsed;
      steps.push(...episode.steps);
    }
    runs.push(counts);
  }
  return { steps, runs };
}
