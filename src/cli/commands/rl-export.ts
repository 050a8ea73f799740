import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { RunStore } from "../../store/contract.ts";
import { type CliContext, openCliStore } from "../context.ts";

interface ExportFlags {
  run: string;
  out: string;
  format: string;
  store: string;
}

const FORMATS = ["trl", "verl"] as const;
type Format = (typeof FORMATS)[number];

function checkFlags(flags: ExportFlags, isStdout: (out: string) => boolean): Format {
  const format = FORMATS.find((f) => f === flags.format);
  if (!format)
    throw new UserError(
      "rl.export_format",
      `--format ${flags.format} is not supported; use --format trl (JSONL rows) or --format verl (Parquet)`,
      { details: { format: flags.format, formats: [...FORMATS] } },
    );
  if (format === "verl" && isStdout(flags.out))
    throw new UserError(
      "rl.export_out",
      `--out ${flags.out}: a verl export is a binary Parquet file, not written to standard output; name a file, e.g. --out rows.parquet`,
    );
  return format;
}

/** The rows of `runId` in `format`, as the file's content. */
async function exportRows(
  format: Format,
  store: RunStore,
  runId: string,
): Promise<{ count: number; skipped: string[]; content: string | Uint8Array }> {
  if (format === "trl") {
    const { toJsonl, trlRlRecords } = await import("../../rl/export-trl.ts");
    const { records, skipped } = trlRlRecords(store, runId);
    return { count: records.length, skipped, content: toJsonl(records) };
  }
  const { verlParquet, verlRlRecords } = await import("../../rl/export-verl.ts");
  const { records, skipped } = verlRlRecords(store, runId);
  return { count: records.length, skipped, content: await verlParquet(records, { runId }) };
}

export function registerRlExport(rl: Command, ctx: CliContext): void {
  rl.command("export")
    .description(
      "write an rl run's scored groups for a trainer (TRL prompt/completion JSONL or verl Parquet, with reward, advantage and loss masks)",
    )
    .requiredOption("--run <id>", "the rl run (from 'rehearsal rl rollouts')")
    .requiredOption("--out <file>", "the file to write (atomically): JSONL for trl, Parquet for verl")
    .option("--format <f>", "trl | verl", "trl")
    .option("--store <dir>", "run store directory", ".rehearsal")
    .action(async (flags: ExportFlags) => {
      const o = ctx.out();
      const { isStdoutTarget, writeFileAtomic } = await import("../../export/output-file.ts");
      const format = checkFlags(flags, isStdoutTarget);
      const store = await openCliStore(flags.store);
      try {
        const { count, skipped, content } = await exportRows(format, store, flags.run);
        const path = writeFileAtomic(flags.out, "rl export", content);
        o.result({ runId: flags.run, format, out: path, records: count, skipped });
        o.line(`wrote ${count} ${format === "trl" ? "TRL" : "verl"} rows of run ${flags.run} to ${path}`);
        if (skipped.length > 0)
          o.line(`skipped ${skipped.length} members without steps: ${skipped.join(", ")}`);
      } finally {
        store.close();
      }
    });
}
