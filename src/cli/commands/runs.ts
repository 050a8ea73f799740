import { type Command, Option } from "commander";
import { UserError } from "../../core/errors.ts";
import { RUN_KINDS } from "../../runner/run-status.ts";
import { type CliContext, openCliStore } from "../context.ts";
import { positiveIntOption } from "../options.ts";
import { formatPercent, printColumns } from "../output.ts";
import { printPerTask } from "./run-summary.ts";

/** The suite a run's config names (`builtin`, `dir:<path>`); "-" for a run without one (skl). */
function suiteOf(config: unknown): string {
  const suite = (config as { suite?: unknown } | null)?.suite;
  return typeof suite === "string" ? suite : "-";
}

export function registerRuns(program: Command, ctx: CliContext): void {
  const runs = program.command("runs").description("inspect recorded runs");
  runs
    .command("list")
    .description("list runs, newest first")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .addOption(new Option("--kind <kind>", "only runs of this kind").choices([...RUN_KINDS]))
    .option("--limit <n>", "at most this many", positiveIntOption, 50)
    .action(async (flags: { store: string; kind?: string; limit: number }) => {
      const o = ctx.out();
      const store = await openCliStore(flags.store);
      try {
        const list = store.listRuns({ limit: flags.limit, ...(flags.kind ? { kind: flags.kind } : {}) });
        o.result({ runs: list });
        if (list.length === 0) o.line(`no runs in ${flags.store}`);
        else
          printColumns(o, list, [
            ["id", (r) => r.id],
            ["kind", (r) => r.kind],
            ["status", (r) => r.status],
            ["seed", (r) => r.seed],
            ["suite", (r) => suiteOf(r.config)],
            ["created", (r) => new Date(r.createdAtMs).toISOString()],
            ["episodes", (r) => String(r.summary.episodes ?? "-")],
            [
              "success rate",
              (r) => (typeof r.summary.successRate === "number" ? formatPercent(r.summary.successRate) : "-"),
            ],
          ]);
      } finally {
        store.close();
      }
    });
  runs
    .command("show <id>")
    .description("show a run: config, per-task results and its trajectories")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action(async (id: string, flags: { store: string }) => {
      const o = ctx.out();
      const { summarizeEpisodes } = await import("../../rollout/summary.ts");
      const { storedEpisodeResults } = await import("../../runner/stored-episodes.ts");
      const store = await openCliStore(flags.store);
      try {
        const run = store.getRun(id);
        if (!run)
          throw new UserError(
            "run.not_found",
            `no run ${id} in ${flags.store}; list runs with 'rehearsal runs list'`,
          );
        const trajectories = store.listTrajectories(id);
        const summary = summarizeEpisodes(storedEpisodeResults(store, id));
        o.result({ run, trajectories, perTask: summary.perTask });
        o.line(`run ${run.id} — ${run.kind}, ${run.status}, seed ${run.seed}, ${run.codeVersion}`);
        o.line(`config: ${JSON.stringify(run.config)}`);
        printPerTask(o, summary.perTask);
        printColumns(o, trajectories, [
          ["trajectory", (t) => t.id],
          ["task", (t) => t.taskId],
          ["episode", (t) => t.episodeIndex],
          ["status", (t) => t.status],
          ["steps", (t) => t.stepCount],
          ["reward", (t) => t.outcome?.reward ?? "-"],
          ["success", (t) => (t.outcome ? String(t.outcome.success) : "-")],
        ]);
      } finally {
        store.close();
      }
    });
}
