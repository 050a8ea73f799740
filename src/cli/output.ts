import { createRequire } from "node:module";
import type Table from "cli-table3";
import { type RehearsalError, toRehearsalError } from "../core/errors.ts";

/** cli-table3 loads on the first table (commands that print none never load it). */
let tableClass: typeof Table | undefined;
function loadTable(): typeof Table {
  tableClass ??= createRequire(import.meta.url)("cli-table3") as typeof Table;
  return tableClass;
}

/** The one place that writes to stdout/stderr. `--json` switches every command to machine output. */
export interface Output {
  readonly json: boolean;
  /** Human text (suppressed in JSON mode). */
  line(text?: string): void;
  /** A table for humans (suppressed in JSON mode). */
  table(head: string[], rows: Array<Array<string | number>>): void;
  /** The command's result: printed as JSON in JSON mode, ignored otherwise. */
  result(value: unknown): void;
  /** Diagnostics to stderr (never mixed into JSON on stdout). */
  warn(text: string): void;
  error(err: unknown): RehearsalError;
}

export function createOutput(options: {
  json: boolean;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  return {
    json: options.json,
    line(text = "") {
      if (!options.json) stdout.write(`${text}\n`);
    },
    table(head, rows) {
      if (options.json) return;
      const t = new (loadTable())({ head, style: { head: [], border: [] } });
      for (const r of rows) t.push(r.map(String));
      stdout.write(`${t.toString()}\n`);
    },
    result(value) {
      if (options.json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    warn(text) {
      stderr.write(`${text}\n`);
    },
    error(err) {
      const e = toRehearsalError(err);
      if (options.json) stdout.write(`${JSON.stringify({ error: e.toJSON() }, null, 2)}\n`);
      else stderr.write(`error [${e.code}]: ${e.message}\n`);
      return e;
    },
  };
}

export function formatPercent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** A table from column specs: each column's header and how a row item gives its cell. */
export function printColumns<T>(
  o: Output,
  items: ReadonlyArray<T>,
  columns: ReadonlyArray<readonly [string, (item: T) => string | number]>,
): void {
  o.table(
    columns.map(([head]) => head),
    items.map((item) => columns.map(([, cell]) => cell(item))),
  );
}
