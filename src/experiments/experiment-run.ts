import type { Runtime } from "../core/runtime.ts";
import type { EpisodeRecorder } from "../knowledge/play-episode.ts";
import { codeVersion } from "../runner/code-version.ts";
import { markRunFailed, markRunInterrupted } from "../runner/run-status.ts";
import type { SignalController } from "../runner/signals.ts";
import type { RunStore } from "../store/contract.ts";

export interface ExperimentRunSpec {
  /** `skl` for every SKL experiment; `config.experiment` says which. */
  kind: "skl";
  seed: string;
  /** The validated options (without secrets). */
  config: Record<string, unknown>;
}

export interface ExperimentRunDeps {
  store: RunStore;
  runtime: Runtime;
  /** The signal policy (SIGINT/SIGTERM): its signal reaches the recorder; without one nothing stops. */
  signals?: SignalController;
}

export interface ExperimentRunResult<T> {
  runId: string;
  result: T;
  /** `interrupted` when a stop request came before the experiment finished (what completed is kept). */
  status: "complete" | "interrupted";
}

/**
 * Runs an experiment as one run of the store: creates it (`running`), hands `body` a recorder on it (its
 * episodes go through the shared episode loop and are stored like any other; the recorder carries the
 * stop signal), then marks it `complete` with `summary(result)`, or `interrupted` when the signal
 * aborted meanwhile (the experiment returns what completed), or `failed` with the error when `body`
 * throws (what was recorded stays). A second signal marks the run `interrupted` before the forced exit.
 * This is the seam to the runner's run lifecycle (`withRunSession`), which needs an environment config
 * that experiments, building their own environments, do not have. SKL runs are not resumable: run the
 * same command again to start over (the seeds are the same).
 */
export async function withExperimentRun<T>(
  deps: ExperimentRunDeps,
  spec: ExperimentRunSpec,
  body: (recorder: EpisodeRecorder) => Promise<T>,
  summary: (result: T) => Record<string, unknown>,
): Promise<ExperimentRunResult<T>> {
  const { store, runtime, signals } = deps;
  const runId = runtime.ids.next(spec.kind);
  store.createRun({
    id: runId,
    kind: spec.kind,
    seed: spec.seed,
    config: spec.config,
    codeVersion: codeVersion(),
    createdAtMs: runtime.clock.nowMs(),
  });
  const removeHook = signals?.onForceExit(() => markRunInterrupted(store, runId, runtime));
  try {
    const signal = signals?.signal;
    const result = await body({ store, runId, runtime, ...(signal ? { signal } : {}) });
    const status = signal?.aborted ? ("interrupted" as const) : ("complete" as const);
    store.updateRun(runId, { status, summary: summary(result), updatedAtMs: runtime.clock.nowMs() });
    return { runId, result, status };
  } catch (e) {
    if (signals?.signal.aborted) markRunInterrupted(store, runId, runtime);
    else markRunFailed(store, runId, runtime, e);
    throw e;
  } finally {
    removeHook?.();
  }
}
