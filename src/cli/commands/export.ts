import { createWriteStream, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { TrajectorySchema, UserError } from "../../core/index.ts";
import { exportSft, exportTrees } from "../../export/index.ts";
import { openCliStore } from "../context.ts";
import { floatOption, intOption, listOption } from "../options.ts";
import type { Output } from "../output.ts";
import { formatPercent } from "../output.ts";

async function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (!stream.write(text)) await new Promise<void>((resolve) => stream.once("drain", () => resolve()));
}

export function registerExport(program: Command, out: () => Output): void {
  const exp = program.command("export").description("export recorded data");
  exp
    .command("trajectories")
    .description("write a run's trajectories, one validated JSON object per line")
    .requiredOption("--run <id>", "run id")
    .option("--format <format>", "jsonl", "jsonl")
    .option("--out <file>", "output file (default: stdout)")
    .option("--status <status>", "only trajectories with this status (complete, infra_failed, ...)")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action(async (flags: { run: string; format: string; out?: string; status?: string; store: string }) => {
      const o = out();
      if (flags.format !== "jsonl")
        throw new UserError("export.format", `unknown format ${flags.format}; supported: jsonl`);
      const store = openCliStore(flags.store);
      try {
        if (!store.getRun(flags.run))
          throw new UserError(
            "run.not_found",
            `no run ${flags.run} in ${flags.store}; list runs with 'rehearsal runs list'`,
          );
        const stream = flags.out ? createWriteStream(flags.out) : process.stdout;
        let count = 0;
        const filter = flags.status ? { status: flags.status as "complete" } : {};
        for (const t of store.iterateTrajectories(flags.run, filter)) {
          const record = TrajectorySchema.parse(t);
          await write(stream, `${JSON.stringify(record)}\n`);
          count += 1;
        }
        if (flags.out) {
          await new Promise<void>((resolve, reject) =>
            (stream as ReturnType<typeof createWriteStream>).end((e?: Error | null) =>
              e ? reject(e) : resolve(),
            ),
          );
          o.result({ run: flags.run, out: flags.out, trajectories: count });
          o.line(`wrote ${count} trajectories to ${flags.out}`);
        }
      } finally {
        store.close();
      }
    });

  exp
    .command("sft")
    .description("verified search steps → a balanced SFT file (TRL conversational or ShareGPT)")
    .requiredOption("--run <id>", "search run id")
    .requiredOption("--out <file>", "output JSONL file")
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
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action(
      (flags: {
        run: string;
        out: string;
        format: string;
        observation: string;
        window: number;
        history: number;
        beta: number;
        wMax: number;
        fraction?: number;
        materializeWeights?: boolean;
        seed: string;
        store: string;
      }) => {
        const o = out();
        if (flags.format !== "trl" && flags.format !== "sharegpt")
          throw new UserError("export.format", `unknown format ${flags.format}; supported: trl, sharegpt`);
        if (
          flags.observation !== "axtree" &&
          flags.observation !== "screenshot" &&
          flags.observation !== "both"
        ) {
          throw new UserError(
            "export.observation",
            `unknown observation mode ${flags.observation}; supported: axtree, screenshot, both`,
          );
        }
        const store = openCliStore(flags.store);
        try {
          const report = exportSft(store, {
            runId: flags.run,
            out: flags.out,
            format: flags.format,
            observation: flags.observation,
            window: flags.window,
            historyLength: flags.history,
            beta: flags.beta,
            wMax: flags.wMax,
            ...(flags.fraction !== undefined ? { fraction: flags.fraction } : {}),
            materializeWeights: Boolean(flags.materializeWeights),
            seed: flags.seed,
          });
          o.result(report);
          o.table(
            [
              "task",
              "SR",
              "unique steps T",
              "kept leaves",
              "weight",
              "mass",
              "pre-clip mass",
              "clipped",
              "records",
            ],
            report.perTask.map((t) => [
              t.taskId,
              formatPercent(t.successRate),
              t.uniqueSteps,
              t.keptLeaves,
              t.weight.toFixed(3),
              t.mass.toFixed(2),
              t.rawMass.toFixed(3),
              t.clipped ? "yes" : "no",
              t.records,
            ]),
          );
          o.line(
            `wrote ${report.records} records (${report.examples} unique steps, ${report.images} images) to ${report.out}`,
          );
        } finally {
          store.close();
        }
      },
    );
  exp
    .command("tree")
    .description("a search run's trees as JSON (nodes, gate decisions, verified outcomes)")
    .requiredOption("--run <id>", "search run id")
    .option("--tasks <ids>", "only these tasks", listOption)
    .option("--out <file>", "output file (default: stdout)")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action((flags: { run: string; tasks?: string[] | "all"; out?: string; store: string }) => {
      const o = out();
      const store = openCliStore(flags.store);
      try {
        const trees = exportTrees(store, flags.run, flags.tasks === "all" ? undefined : flags.tasks);
        const text = `${JSON.stringify(trees, null, 2)}\n`;
        if (flags.out) {
          writeFileSync(flags.out, text);
          o.result({ run: flags.run, out: flags.out });
          o.line(`wrote ${flags.out}`);
        } else process.stdout.write(text);
      } finally {
        store.close();
      }
    });
}
