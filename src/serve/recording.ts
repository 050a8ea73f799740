import type { ErrorInfo, Observation, Runtime, StepRecord, Task, VerifierResult } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";

/** The run kind of served episodes (`rehearsal runs list`, `rehearsal export trajectories --run`). */
export const SERVE_RUN_KIND = "serve";

/** How an episode ended, as recorded. */
export type EpisodeEnd =
  | { status: "complete"; finalObservation: Observation; outcome: VerifierResult }
  | { status: "aborted" | "infra_failed"; finalObservation?: Observation; error: ErrorInfo };

/** What the sessions tell the run store; a server without `--store` records nothing. */
export interface ServeRecorder {
  readonly runId: string | undefined;
  startEpisode(e: { episodeId: string; sessionId: string; task: Task; seed: number }): string | undefined;
  step(trajectoryId: string | undefined, step: StepRecord): void;
  endEpisode(trajectoryId: string | undefined, end: EpisodeEnd): void;
  /** Ends the run `complete` with its counts. Idempotent. */
  close(): void;
}

export const noRecorder: ServeRecorder = {
  runId: undefined,
  startEpisode: () => undefined,
  step: () => undefined,
  endEpisode: () => undefined,
  close: () => undefined,
};

export interface StoreRecorderOptions {
  store: RunStore;
  runtime: Runtime;
  tasks: ReadonlyArray<Task>;
  config: Record<string, unknown>;
  codeVersion: string;
}

/**
 * Records every served episode in a run of kind `serve`: one trajectory per reset, every step as it
 * happens, and its end (complete with the verifier's outcome, aborted when the client left or reset
 * mid-episode, infra_failed when the environment broke). The run is created when the server starts.
 */
export function createStoreRecorder(options: StoreRecorderOptions): ServeRecorder {
  const { store, runtime } = options;
  const runId = runtime.ids.next("serve");
  store.createRun({
    id: runId,
    kind: SERVE_RUN_KIND,
    seed: runtime.seed,
    config: options.config,
    codeVersion: options.codeVersion,
    createdAtMs: runtime.clock.nowMs(),
  });
  for (const task of options.tasks) store.putTask(runId, task);
  const open = new Set<string>();
  let episodes = 0;
  let steps = 0;
  let closed = false;
  const ends: Record<string, number> = { complete: 0, aborted: 0, infra_failed: 0 };
  return {
    runId,
    startEpisode(e) {
      const id = `${runId}-${e.episodeId}`;
      store.startTrajectory({
        id,
        runId,
        taskId: e.task.id,
        episodeIndex: episodes,
        seed: e.seed,
        policy: "remote",
        startedAtMs: runtime.clock.nowMs(),
        meta: { serve: { sessionId: e.sessionId, episodeId: e.episodeId } },
      });
      episodes += 1;
      open.add(id);
      return id;
    },
    step(trajectoryId, step) {
      if (trajectoryId === undefined) return;
      store.appendStep(trajectoryId, step);
      steps += 1;
    },
    endEpisode(trajectoryId, end) {
      if (trajectoryId === undefined || !open.delete(trajectoryId)) return;
      ends[end.status] = (ends[end.status] ?? 0) + 1;
      store.finishTrajectory(trajectoryId, { ...end, endedAtMs: runtime.clock.nowMs() });
    },
    close() {
      if (closed) return;
      closed = true;
      store.updateRun(runId, {
        status: "complete",
        summary: { episodes, steps, ...ends },
        updatedAtMs: runtime.clock.nowMs(),
      });
    },
  };
}
