import { TrajectorySchema, type TrajectoryStatus } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import type { ExportSink } from "./export-sink.ts";
import { requireRun } from "./run-checks.ts";

export interface TrajectoriesExportOptions {
  runId: string;
  /** Only trajectories with this status. */
  status?: TrajectoryStatus;
}

/** Writes a run's trajectories to `sink`, one validated JSON object per line; returns how many. */
export async function exportTrajectories(
  store: RunStore,
  options: TrajectoriesExportOptions,
  sink: ExportSink,
): Promise<number> {
  requireRun(store, options.runId);
  let count = 0;
  const filter = options.status ? { status: options.status } : {};
  for (const t of store.iterateTrajectories(options.runId, filter)) {
    await sink.write(`${JSON.stringify(TrajectorySchema.parse(t))}\n`);
    count += 1;
  }
  return count;
}
