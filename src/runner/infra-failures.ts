import { EnvironmentError } from "../core/errors.ts";
import type { TaskSearchResult } from "../search/index.ts";

/** A run's environment failures: how many, how many of each error code, and the first one's message. */
export interface InfraFailures {
  count: number;
  codes: Record<string, number>;
  first?: { code: string; message: string };
}

/** The failures of the given errors, in the order they happened. */
export function countInfraFailures(errors: Iterable<{ code: string; message: string }>): InfraFailures {
  const out: InfraFailures = { count: 0, codes: {} };
  for (const e of errors) {
    out.count += 1;
    out.codes[e.code] = (out.codes[e.code] ?? 0) + 1;
    out.first ??= { code: e.code, message: e.message };
  }
  return out;
}

/** Of finished episodes: the `infra_failed` ones (each carries the error that stopped it). */
export function episodeInfraFailures(
  results: ReadonlyArray<{ status: string; error?: { code: string; message: string } | undefined }>,
): InfraFailures {
  return countInfraFailures(
    results
      .filter((r) => r.status === "infra_failed")
      .map((r) => r.error ?? { code: "env.unknown", message: "the environment failed" }),
  );
}

/** Of a search: the nodes it dropped as environment failures (`dropReason` "infra_failed: <code>"). */
export function searchInfraFailures(results: ReadonlyArray<TaskSearchResult>): InfraFailures {
  const errors: Array<{ code: string; message: string }> = [];
  for (const r of results)
    for (const node of r.nodes.values()) {
      const m = /^infra_failed: (.+)$/.exec(node.dropReason ?? "");
      if (node.status === "dropped" && m)
        errors.push({ code: m[1] as string, message: `task ${r.stats.taskId}: node ${node.id} dropped` });
    }
  return countInfraFailures(errors);
}

/** "env.task_page_invalid ×3, env.page_unresponsive ×1", commonest first. */
export function formatInfraCodes(failures: InfraFailures): string {
  return Object.entries(failures.codes)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([code, n]) => `${code} ×${n}`)
    .join(", ");
}

/**
 * The error of a run in which every unit of work (episode, search node) failed in the environment:
 * such a run measured nothing, so it ends `failed` (exit 3), never `complete`. The error carries the
 * commonest failure's code and the first failure's message, which names what broke and the fix.
 */
export function allInfraFailedError(what: string, runId: string, failures: InfraFailures): EnvironmentError {
  const [code] = Object.entries(failures.codes).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  )[0] ?? ["env.unknown"];
  const first = failures.first ? `; first failure: [${failures.first.code}] ${failures.first.message}` : "";
  return new EnvironmentError(
    code,
    `run ${runId}: all ${failures.count} ${what} failed in the environment (${formatInfraCodes(failures)})${first}`,
    { details: { runId, infraFailures: failures } },
  );
}
