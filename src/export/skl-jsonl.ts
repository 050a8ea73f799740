import type { z } from "zod";
import { InternalError } from "../core/errors.ts";
import { writeFileAtomic } from "./output-file.ts";

/** How SKL dataset writes are named in write errors. */
export const SKL_DATASET_OPERATION = "SKL dataset";

/** An SKL dataset record that does not validate: a bug in the pipeline that built it; nothing is written. */
export class SklRecordError extends InternalError {
  constructor(dataset: string, detail: string, cause?: unknown) {
    super(
      "export.skl_bad_record",
      `SKL ${dataset} record is invalid: ${detail}. Nothing was written; report this as a bug of the SKL pipeline.`,
      { ...(cause === undefined ? {} : { cause }) },
    );
  }
}

/** "path: message" of the first zod issue. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.map(String).join(".") || "(root)"}: ${issue?.message ?? "invalid"}`;
}

/** Parses one record with `schema`; throws `SklRecordError` naming the dataset when it does not validate. */
export function validRecord<T>(schema: z.ZodType<T>, record: unknown, dataset: string): T {
  const parsed = schema.safeParse(record);
  if (!parsed.success) throw new SklRecordError(dataset, firstIssue(parsed.error), parsed.error);
  return parsed.data;
}

/** JSONL text: one record per line, final newline (empty string for no records). */
export function toJsonl(records: ReadonlyArray<unknown>): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}

/**
 * Validates every record, then writes them as JSONL to `path` (parent folders created; an empty file
 * when there are none) atomically: the file is replaced whole or, on failure, left as it was. Nothing is
 * written when one record is invalid.
 */
export function writeValidatedJsonl<T>(
  path: string,
  schema: z.ZodType<T>,
  records: ReadonlyArray<unknown>,
): void {
  const valid = records.map((r, index) => validRecord(schema, r, `record ${index} for ${path}`));
  writeFileAtomic(path, SKL_DATASET_OPERATION, toJsonl(valid));
}
