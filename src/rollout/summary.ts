import type { EpisodeResult } from "./run-episode.ts";

export interface TaskSummary {
  taskId: string;
  episodes: number;
  successes: number;
  successRate: number;
  meanSteps: number;
}

export interface RunSummary {
  episodes: number;
  complete: number;
  infraFailed: number;
  successes: number;
  /** Successes over complete episodes (infra failures are excluded, never scored 0). */
  successRate: number;
  meanReward: number;
  meanSteps: number;
  parseErrors: number;
  usage: { promptTokens: number; completionTokens: number; calls: number };
  perTask: TaskSummary[];
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function summarizeEpisodes(results: ReadonlyArray<EpisodeResult>): RunSummary {
  const complete = results.filter((r) => r.status === "complete");
  const byTask = new Map<string, EpisodeResult[]>();
  for (const r of complete) {
    const list = byTask.get(r.taskId);
    if (list) list.push(r);
    else byTask.set(r.taskId, [r]);
  }
  const perTask = [...byTask.entries()].map(([taskId, rs]) => {
    const successes = rs.filter((r) => r.outcome?.success).length;
    return {
      taskId,
      episodes: rs.length,
      successes,
      successRate: successes / rs.length,
      meanSteps: mean(rs.map((r) => r.steps)),
    };
  });
  const successes = complete.filter((r) => r.outcome?.success).length;
  return {
    episodes: results.length,
    complete: complete.length,
    infraFailed: results.filter((r) => r.status === "infra_failed").length,
    successes,
    successRate: complete.length === 0 ? 0 : successes / complete.length,
    meanReward: mean(complete.map((r) => r.outcome?.reward ?? 0)),
    meanSteps: mean(complete.map((r) => r.steps)),
    parseErrors: results.reduce((a, r) => a + r.parseErrors, 0),
    usage: {
      promptTokens: results.reduce((a, r) => a + r.usage.promptTokens, 0),
      completionTokens: results.reduce((a, r) => a + r.usage.completionTokens, 0),
      calls: results.reduce((a, r) => a + r.usage.calls, 0),
    },
    perTask,
  };
}
