import type { Command } from "commander";
import { UserError } from "../../core/index.ts";
import { summarizeEpisodes } from "../../rollout/index.ts";
import { openCliStore } from "../context.ts";
import { formatPercent, type Output } from "../output.ts";

export function registerRuns(program: Command, out: () => Output): void {
  const runs = program.command("runs").description("inspect recorded runs");
  runs
    .command("list")
    .description("list runs, newest first")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .option("--kind <kind>", "only runs of this kind (run, search, eval, ...)")
    .option("--limit <n>", "at most this many", "50")
    .action((flags: { store: string; kind?: string; limit: string }) => {
      const o = out();
      const store = openCliStore(flags.store);
      try {
        const list = store.listRuns({
          limit: Number(flags.limit),
          ...(flags.kind ? { kind: flags.kind } : {}),
        });
        o.result({ runs: list });
        if (list.length === 0) o.line(`no runs in ${flags.store}`);
        else
          o.table(
            ["id", "kind", "status", "seed", "created", "episodes", "success rate"],
            list.map((r) => [
              r.id,
              r.kind,
              r.status,
              r.seed,
              new Date(r.createdAtMs).toISOString(),
              String(r.summary.episodes ?? "-"),
              typeof r.summary.successRate === "number" ? formatPercent(r.summary.successRate) : "-",
            ]),
          );
      } finally {
        store.close();
      }
    });
  runs
    .command("show <id>")
    .description("show a run: config, per-task results and its trajectories")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action((id: string, flags: { store: string }) => {
      const o = out();
      const store = openCliStore(flags.store);
      try {
        const run = store.getRun(id);
        if (!run)
          throw new UserError(
            "run.not_found",
            `no run ${id} in ${flags.store}; list runs with 'rehearsal runs list'`,
          );
        const trajectories = store.listTrajectories(id);
        const results = trajectories.map((t) => ({
          trajectoryId: t.id,
          taskId: t.taskId,
          episodeIndex: t.episodeIndex,
          status: t.status === "infra_failed" ? ("infra_failed" as const) : ("complete" as const),
          steps: t.stepCount,
          parseErrors: 0,
          ...(t.outcome ? { outcome: t.outcome } : {}),
          usage: { promptTokens: 0, completionTokens: 0, calls: 0 },
        }));
        const finished = results.filter(
          (_, i) => trajectories[i]?.status !== "running" && trajectories[i]?.status !== "aborted",
        );
        const summary = summarizeEpisodes(finished);
        o.result({ run, trajectories, perTask: summary.perTask });
        o.line(`run ${run.id} — ${run.kind}, ${run.status}, seed ${run.seed}, ${run.codeVersion}`);
        o.line(`config: ${JSON.stringify(run.config)}`);
        o.table(
          ["task", "episodes", "successes", "success rate", "mean length"],
          summary.perTask.map((t) => [
            t.taskId,
            t.episodes,
            t.successes,
            formatPercent(t.successRate),
            t.meanSteps.toFixed(2),
          ]),
        );
        o.table(
          ["trajectory", "task", "episode", "status", "steps", "reward", "success"],
          trajectories.map((t) => [
            t.id,
            t.taskId,
            t.episodeIndex,
            t.status,
            t.stepCount,
            t.outcome?.reward ?? "-",
            t.outcome ? String(t.outcome.success) : "-",
          ]),
        );
      } finally {
        store.close();
      }
    });
}
