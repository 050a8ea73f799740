import type { Command } from "commander";
import type { RunStore } from "../../store/index.ts";
import { openCliStore } from "../context.ts";
import { floatOption, intOption, listOption } from "../options.ts";
import type { Output } from "../output.ts";

/** `--out` help shared by the commands that can stream to standard output. */
const OUT_HELP = "output file, written atomically (default, or '-': stdout)";

/** The export layer, loaded when an export runs (not for `--help`). */
const exportLayer = () => import("../../export/index.ts");

async function withStore<T>(dir: string, use: (store: RunStore) => T | Promise<T>): Promise<T> {
  const store = await openCliStore(dir);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

/** `rehearsal export trajectories|sft|tree`: parse the flags, call src/export, print the report. */
export function registerExport(program: Command, out: () => Output): void {
  const commands = program.command("export").description("export recorded data");
  const storeOption = ["--store <dir>", "run store directory", ".rehearsal"] as const;

  commands
    .command("trajectories")
    .description("write a run's trajectories, one validated JSON object per line")
    .requiredOption("--run <id>", "run id")
    .option("--format <format>", "jsonl", "jsonl")
    .option("--out <file>", OUT_HELP)
    .option(
      "--status <status>",
      "only trajectories with this status (running, complete, infra_failed, aborted)",
    )
    .option(...storeOption)
    .action(async (raw: unknown) => {
      const { exportTrajectories, parseExportFlags, TrajectoriesExportFlagsSchema, writeExport } =
        await exportLayer();
      const flags = parseExportFlags(TrajectoriesExportFlagsSchema, raw, "trajectories");
      const options = { runId: flags.run, ...(flags.status ? { status: flags.status } : {}) };
      const { result: count, path } = await withStore(flags.store, (store) =>
        writeExport(flags.out, "export trajectories", process.stdout, (sink) =>
          exportTrajectories(store, options, sink),
        ),
      );
      if (path === undefined) return;
      out().result({ run: flags.run, out: flags.out, path, trajectories: count });
      out().line(`wrote ${count} trajectories to ${flags.out}`);
    });

  commands
    .command("sft")
    .description("verified search steps → a balanced SFT file (TRL conversational or ShareGPT)")
    .requiredOption("--run <id>", "search run id")
    .requiredOption("--out <file>", "output JSONL file, written atomically; images go to <file>.images/")
    .option("--format <format>", "trl | sharegpt", "trl")
    .option("--observation <mode>", "what the prompt shows: axtree | screenshot | both", "axtree")
    .option("--window <n>", "observations in the prompt: the current one and n-1 before it", intOption, 1)
    .option("--history <n>", "previous actions listed in the prompt", intOption, 5)
    .option("--beta <b>", "difficulty exponent of the task weight (1 - SR)^beta", floatOption, 0.5)
    .option("--w-max <w>", "weight cap relative to the mean", floatOption, 2)
    .option("--fraction <f>", "keep this seeded fraction of each task's successful leaves", floatOption)
    .option(
      "--materialize-weights",
      "write a weight-free file: records repeated/subsampled to the task masses",
    )
    .option("--seed <seed>", "seed for subsampling and materialisation", "0")
    .option("--no-context", "leave out each record's policy context (the field train sft reads back)")
    .option(...storeOption)
    .action(async (raw: unknown) => {
      const { exportSft, parseExportFlags, SftExportFlagsSchema, sftReportTable } = await exportLayer();
      const flags = parseExportFlags(SftExportFlagsSchema, raw, "sft");
      const report = await withStore(flags.store, (store) =>
        exportSft(store, {
          runId: flags.run,
          out: flags.out,
          format: flags.format,
          observation: flags.observation,
          window: flags.window,
          historyLength: flags.history,
          beta: flags.beta,
          wMax: flags.wMax,
          ...(flags.fraction !== undefined ? { fraction: flags.fraction } : {}),
          materializeWeights: flags.materializeWeights,
          seed: flags.seed,
          context: flags.context,
        }),
      );
      const table = sftReportTable(report);
      out().result(report);
      out().table(table.head, table.rows);
      out().line(
        `wrote ${report.records} records (${report.examples} unique steps, ${report.images} images) to ${report.out}`,
      );
    });

  commands
    .command("tree")
    .description("a search run's trees as JSON (nodes, gate decisions, verified outcomes)")
    .requiredOption("--run <id>", "search run id")
    .option("--tasks <ids>", "only these tasks", listOption)
    .option("--out <file>", OUT_HELP)
    .option(...storeOption)
    .action(async (raw: unknown) => {
      const { exportTrees, parseExportFlags, TreeExportFlagsSchema, writeExport } = await exportLayer();
      const flags = parseExportFlags(TreeExportFlagsSchema, raw, "tree");
      const tasks = flags.tasks === "all" ? undefined : flags.tasks;
      const { path } = await withStore(flags.store, (store) => {
        const text = `${JSON.stringify(exportTrees(store, flags.run, tasks), null, 2)}\n`;
        return writeExport(flags.out, "export tree", process.stdout, (sink) => sink.write(text));
      });
      if (path === undefined) return;
      out().result({ run: flags.run, out: flags.out, path });
      out().line(`wrote ${flags.out}`);
    });
}
