import { UserError } from "../core/index.ts";
import type { RunRecord, RunStore } from "../store/contract.ts";

/** The run, or a UserError naming the run and how to list the runs there are. */
export function requireRun(store: RunStore, runId: string, kind?: string): RunRecord {
  const run = store.getRun(runId);
  if (!run)
    throw new UserError(
      "run.not_found",
      `no run ${runId} in the store; list runs with 'rehearsal runs list${kind ? ` --kind ${kind}` : ""}'`,
      { details: { runId } },
    );
  return run;
}

/** The run, refused unless it is a search run (`export sft` and `export tree` read search trees). */
export function requireSearchRun(store: RunStore, runId: string, exportName: string): RunRecord {
  const run = requireRun(store, runId, "search");
  if (run.kind !== "search")
    throw new UserError(
      "export.not_search_run",
      `run ${runId} is a ${run.kind} run; ${exportName} needs a search run. Fix: pick one from 'rehearsal runs list --kind search'`,
      { details: { runId, kind: run.kind } },
    );
  return run;
}
