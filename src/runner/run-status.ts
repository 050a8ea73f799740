import { toRehearsalError, UserError } from "../core/errors.ts";
import type { Runtime } from "../core/index.ts";
import type { RunRecord, RunStatus, RunStore } from "../store/index.ts";

/** The kinds of run the runner creates (`runs list --kind` accepts these). */
export const RUN_KINDS = ["run", "search", "eval", "skl", "rl", "serve"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** Marks a run failed with the error that stopped it; what was recorded before stays recorded. */
export function markRunFailed(store: RunStore, runId: string, runtime: Runtime, error: unknown): void {
  const e = toRehearsalError(error);
  setRunStatus(store, runId, runtime, "failed", {
    error: { code: e.code, category: e.category, message: e.message },
  });
}

/** Marks a run interrupted (resumable), keeping its summary. Never throws. */
export function markRunInterrupted(store: RunStore, runId: string, runtime: Runtime): void {
  setRunStatus(store, runId, runtime, "interrupted", {});
}

function setRunStatus(
  store: RunStore,
  runId: string,
  runtime: Runtime,
  status: RunStatus,
  extra: Record<string, unknown>,
): void {
  try {
    const run = store.getRun(runId);
    store.updateRun(runId, {
      status,
      summary: { ...(run?.summary ?? {}), ...extra },
      updatedAtMs: runtime.clock.nowMs(),
    });
  } catch {
    // The store itself may be what failed; the original error is what the user needs to see.
  }
}

/** A stored run that `--resume` may continue: it exists, is of `kind` and is not complete. */
export function resumableRun(store: RunStore, runId: string, kind: RunKind, storeDir: string): RunRecord {
  const run = store.getRun(runId);
  if (!run)
    throw new UserError(
      "run.not_found",
      `no run ${runId} in ${storeDir}; list runs with 'rehearsal runs list --kind ${kind}'`,
    );
  if (run.kind !== kind)
    throw new UserError(
      `${kind}.not_${kind}_run`,
      `run ${run.id} is a ${run.kind} run; ${kind} --resume takes a ${kind} run`,
    );
  if (run.status === "complete")
    throw new UserError(
      `${kind}.already_complete`,
      `${kind} run ${run.id} is already complete; nothing to resume`,
    );
  return run;
}

/** The command that continues an interrupted run (returned for the caller to print). */
export function resumeHint(run: { kind: string; id: string }, storeDir: string): string {
  if (run.kind === "search" || run.kind === "run")
    return `resume with: rehearsal ${run.kind} --resume ${run.id} --store ${storeDir}`;
  return `what completed is in 'rehearsal runs show ${run.id} --store ${storeDir}'; run the same command again to start over (episode seeds are the same)`;
}
