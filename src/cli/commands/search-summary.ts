import type { InfraFailures } from "../../runner/infra-failures.ts";
import type { TaskSearchResult } from "../../search/index.ts";
import { formatPercent, type Output } from "../output.ts";
import { printInfraFailures } from "./run-summary.ts";

/** Prints a search's per-task table; `asResult: false` when the caller prints its own JSON result. */
export function printSearchSummary(
  o: Output,
  run: { runId: string; status: string; results: TaskSearchResult[]; infraFailures?: InfraFailures },
  options: { asResult?: boolean } = {},
): void {
  const stats = run.results.map((r) => r.stats);
  const counters = run.results.map((r) => ({ taskId: r.stats.taskId, ...r.counters }));
  const totals = {
    tasks: stats.length,
    tasksWithSuccess: stats.filter((s) => s.successes > 0).length,
    leaves: stats.reduce((a, s) => a + s.leaves, 0),
    successes: stats.reduce((a, s) => a + s.successes, 0),
    uniqueSteps: stats.reduce((a, s) => a + s.uniqueSteps, 0),
    envSteps: counters.reduce((a, c) => a + c.envSteps, 0),
    replaySteps: counters.reduce((a, c) => a + c.replaySteps, 0),
    mismatches: counters.reduce((a, c) => a + c.mismatches, 0),
  };
  if (options.asResult ?? true)
    o.result({
      runId: run.runId,
      status: run.status,
      totals,
      perTask: stats,
      counters,
      ...(run.infraFailures ? { infraFailures: run.infraFailures } : {}),
    });
  o.line(`search ${run.runId} (${run.status})`);
  o.table(
    ["task", "tier", "split", "nodes", "leaves", "successes", "SR", "unique steps T", "dropped", "env steps"],
    stats.map((s) => [
      s.taskId,
      s.tier,
      s.split,
      s.nodes,
      s.leaves,
      s.successes,
      formatPercent(s.successRate),
      s.uniqueSteps,
      s.dropped,
      s.envSteps,
    ]),
  );
  const tags = new Map<string, number>();
  for (const s of stats)
    for (const [tag, n] of Object.entries(s.noiseTags ?? {})) tags.set(tag, (tags.get(tag) ?? 0) + n);
  if (tags.size > 0)
    o.line(
      `noise tags of leaves: ${[...tags.entries()]
        .sort()
        .map(([t, n]) => `${t} ${n}`)
        .join(", ")}`,
    );
  o.line(
    `${totals.tasksWithSuccess}/${totals.tasks} tasks with a verified success; ${totals.successes}/${totals.leaves} successful leaves; ${totals.uniqueSteps} unique steps; ${totals.envSteps} environment steps (${totals.replaySteps} replayed); ${totals.mismatches} replay mismatches`,
  );
  if (run.infraFailures)
    printInfraFailures(
      o,
      run.runId,
      run.infraFailures,
      `${stats.reduce((a, s) => a + s.nodes, 0)} search nodes`,
    );
}
