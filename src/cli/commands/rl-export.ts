import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import { type CliContext, openCliStore } from "../context.ts";

interface ExportFlags {
  run: string;
  out: string;
  format: string;
  store: string;
}

export function registerRlExport(rl: Command, ctx: CliContext): void {
  rl.command("export")
    .description(
      "write an rl run's scored groups for a trainer (TRL prompt/completion JSONL with reward and advantage)",
    )
    .requiredOption("--run <id>", "the rl run (from 'rehearsal rl rollouts')")
    .requiredOption("--out <file>", "the JSONL file to write (atomically)")
    .option("--format <f>", "trl", "trl")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action(async (flags: ExportFlags) => {
      const o = ctx.out();
      if (flags.format !== "trl")
        throw new UserError(
          "rl.export_format",
          `--format ${flags.format} is not supported; use --format trl`,
        );
      const { toJsonl, trlRlRecords } = await import("../../rl/export-trl.ts");
      const { writeFileAtomic } = await import("../../export/output-file.ts");
      const store = await openCliStore(flags.store);
      try {
        const { records, skipped } = trlRlRecords(store, flags.run);
        const path = writeFileAtomic(flags.out, "rl export", toJsonl(records));
        o.result({ runId: flags.run, format: flags.format, out: path, records: records.length, skipped });
        o.line(`wrote ${records.length} TRL rows of run ${flags.run} to ${path}`);
        if (skipped.length > 0)
          o.line(`skipped ${skipped.length} members without steps: ${skipped.join(", ")}`);
      } finally {
        store.close();
      }
    });
}
