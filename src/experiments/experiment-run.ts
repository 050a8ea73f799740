import type { Runtime } from "../core/runtime.ts";
import type { EpisodeRecorder } from "../knowledge/play-episode.ts";
import { codeVersion } from "../runner/code-version.ts";
import { markRunFailed } from "../runner/run-status.ts";
import type { RunStore } from "../store/contract.ts";

export interface ExperimentRunSpec {
  /** `skl` for every SKL experiment; `config.experiment` says which. */
  kind: "skl";
  seed: string;
  /** The validated options (without secrets). */
  config: Record<string, unknown>;
}

/**
 * Runs an experiment as one run of the store: creates it (`running`), hands `body` a recorder on it (its
 * episodes go through the shared episode loop and are stored like any other), then marks it `complete`
 * with `summary(result)`, or `failed` with the error when `body` throws (what was recorded stays).
 * This is the seam to the runner's run lifecycle (`withRunSession`), which needs an environment config
 * that experiments, building their own environments, do not have.
 */
export async function withExperimentRun<T>(
  deps: { store: RunStore; runtime: Runtime },
  spec: ExperimentRunSpec,
  body: (recorder: EpisodeRecorder) => Promise<T>,
  summary: (result: T) => Record<string, unknown>,
): Promise<{ runId: string; result: T }> {
  const { store, runtime } = deps;
  const runId = runtime.ids.next(spec.kind);
  store.createRun({
    id: runId,
    kind: spec.kind,
    seed: spec.seed,
    config: spec.config,
    codeVersion: codeVersion(),
    createdAtMs: runtime.clock.nowMs(),
  });
  try {
    const result = await body({ store, runId, runtime });
    store.updateRun(runId, {
      status: "complete",
      summary: summary(result),
      updatedAtMs: runtime.clock.nowMs(),
    });
    return { runId, result };
  } catch (e) {
    markRunFailed(store, runId, runtime, e);
    throw e;
  }
}
