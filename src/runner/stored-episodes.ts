import type { EpisodeResult } from "../rollout/index.ts";
import type { RunStore } from "../store/index.ts";

/**
 * The finished episodes of a stored run (complete or infra-failed; running and aborted ones are not
 * results), as `EpisodeResult`s in episode order. Token usage is not stored, so it reads as zero.
 */
export function storedEpisodeResults(store: RunStore, runId: string): EpisodeResult[] {
  const out: EpisodeResult[] = [];
  for (const t of store.iterateTrajectories(runId)) {
    if (t.status !== "complete" && t.status !== "infra_failed") continue;
    out.push({
      trajectoryId: t.id,
      taskId: t.taskId,
      episodeIndex: t.episodeIndex,
      status: t.status,
      steps: t.steps.length,
      parseErrors: t.steps.filter((s) => s.parseError !== undefined).length,
      ...(t.outcome ? { outcome: t.outcome } : {}),
      ...(t.error ? { error: t.error } : {}),
      usage: { promptTokens: 0, completionTokens: 0, calls: 0 },
    });
  }
  return out;
}
