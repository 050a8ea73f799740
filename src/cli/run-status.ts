import { type Runtime, toRehearsalError } from "../core/index.ts";
import type { RunStore } from "../store/index.ts";

/** Marks a run failed with the error that stopped it; what was recorded before stays recorded. */
export function markRunFailed(store: RunStore, runId: string, runtime: Runtime, error: unknown): void {
  const e = toRehearsalError(error);
  try {
    const run = store.getRun(runId);
    store.updateRun(runId, {
      status: "failed",
      summary: { ...(run?.summary ?? {}), error: { code: e.code, category: e.category, message: e.message } },
      updatedAtMs: runtime.clock.nowMs(),
    });
  } catch {
    // The store itself may be what failed; the original error is what the user needs to see.
  }
}
