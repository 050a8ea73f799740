import { createWriteStream } from "node:fs";
import type { Command } from "commander";
import { TrajectorySchema, UserError } from "../../core/index.ts";
import { openCliStore } from "../context.ts";
import type { Output } from "../output.ts";

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
}
