import { basename, dirname, join } from "node:path";
import { UserError } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import { copyVerifiedArtefacts } from "./artefacts.ts";
import { collectExamples } from "./examples.ts";
import { type FormatOptions, type ObservationMode, toShareGptRecord, toTrlRecord } from "./formats.ts";
import { type MaterializedTask, materializeWeights } from "./materialize.ts";
import { isStdoutTarget, openAtomicFile } from "./output-file.ts";

export interface SftExportOptions {
  runId: string;
  out: string;
  format: "trl" | "sharegpt";
  observation: ObservationMode;
  window: number;
  historyLength: number;
  beta: number;
  wMax: number;
  fraction?: number;
  materializeWeights: boolean;
  seed: string;
  /** Whether each record carries the policy context it was produced from (`context`; default true). */
  context?: boolean;
}

/** The options `rehearsal export sft` leaves at their defaults: TRL rows of the axtree, one step shown, β 0.5, w_max 2. */
export const SFT_EXPORT_DEFAULTS: Readonly<Omit<SftExportOptions, "runId" | "out" | "fraction">> = {
  format: "trl",
  observation: "axtree",
  window: 1,
  historyLength: 5,
  beta: 0.5,
  wMax: 2,
  materializeWeights: false,
  seed: "0",
};

export interface SftExportReport {
  out: string;
  records: number;
  examples: number;
  images: number;
  perTask: Array<{
    taskId: string;
    successRate: number;
    uniqueSteps: number;
    weight: number;
    mass: number;
    rawMass: number;
    clipped: boolean;
    keptLeaves: number;
    records: number;
  }>;
  materialized?: MaterializedTask[];
  /** Stated tolerance of the materialised file: each task's record count is within this of its mass. */
  materializeTolerance?: number;
}

/**
 * Writes a search run's verified steps as a training file (TRL conversational or ShareGPT), one
 * validated record per line, with balancing weights (or materialised repetitions) and provenance.
 * Screenshots are copied next to the file (`<out>.images/<sha>.png`), each checked against its content
 * hash, and referenced relatively. The file is written atomically (see `openAtomicFile`): on any failure
 * neither it nor the images this export added are left behind.
 * The same store, options and seed give a byte-identical file.
 */
export function exportSft(store: RunStore, options: SftExportOptions): SftExportReport {
  if (isStdoutTarget(options.out))
    throw new UserError(
      "export.out_stdout",
      "export sft writes a file and a folder of images beside it, not standard output. Fix: name a file with --out",
    );
  if (!(options.window >= 1))
    throw new UserError("export.window", `--window must be ≥ 1, got ${options.window}`);
  const collected = collectExamples(store, options.runId, {
    seed: options.seed,
    beta: options.beta,
    wMax: options.wMax,
    ...(options.fraction !== undefined ? { fraction: options.fraction } : {}),
  });
  const imagesDirName = `${basename(options.out)}.images`;
  const imagesDir = join(dirname(options.out), imagesDirName);
  const images = new Set<string>();
  const formatOptions: FormatOptions = {
    runId: options.runId,
    observation: options.observation,
    window: options.window,
    historyLength: options.historyLength,
    weights: !options.materializeWeights,
    context: options.context !== false,
    imagePath: (sha) => {
      images.add(sha);
      return `${imagesDirName}/${sha}.png`;
    },
  };
  const stats = new Map(
    collected.weights.map(
      (w) => [w.taskId, { successRate: w.successRate, uniqueSteps: w.uniqueSteps }] as const,
    ),
  );
  let rows = collected.examples;
  let materialized: MaterializedTask[] | undefined;
  if (options.materializeWeights) {
    const m = materializeWeights(collected.examples, options.seed);
    rows = m.examples;
    materialized = m.tasks;
  }
  const recordsPerTask = new Map<string, number>();
  const file = openAtomicFile(options.out, "export sft");
  try {
    for (const e of rows) {
      const record =
        options.format === "trl"
          ? toTrlRecord(e, formatOptions, stats.get(e.taskId))
          : toShareGptRecord(e, formatOptions, stats.get(e.taskId));
      file.write(`${JSON.stringify(record)}\n`);
      recordsPerTask.set(e.taskId, (recordsPerTask.get(e.taskId) ?? 0) + 1);
    }
    // Screenshots are verified and copied before the file is renamed into place; a failure at either
    // step removes what this export wrote.
    const copied =
      images.size > 0 ? copyVerifiedArtefacts(store, images, imagesDir, ".png", "export sft") : undefined;
    try {
      file.commit();
    } catch (error) {
      copied?.remove();
      throw error;
    }
  } finally {
    file.abort();
  }
  return {
    out: options.out,
    records: rows.length,
    examples: collected.examples.length,
    images: images.size,
    perTask: collected.weights.map((w) => ({
      taskId: w.taskId,
      successRate: w.successRate,
      uniqueSteps: w.uniqueSteps,
      weight: w.weight,
      mass: w.mass,
      rawMass: w.rawMass,
      clipped: w.clipped,
      keptLeaves: collected.keptLeaves[w.taskId] ?? 0,
      records: recordsPerTask.get(w.taskId) ?? 0,
    })),
    ...(materialized ? { materialized, materializeTolerance: 1 } : {}),
  };
}

/** The per-task table of an SFT export report, as the CLI prints it. */
export function sftReportTable(report: SftExportReport): {
  head: string[];
  rows: Array<Array<string | number>>;
} {
  return {
    head: [
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
    rows: report.perTask.map((t) => [
      t.taskId,
      `${(100 * t.successRate).toFixed(1)}%`,
      t.uniqueSteps,
      t.keptLeaves,
      t.weight.toFixed(3),
      t.mass.toFixed(2),
      t.rawMass.toFixed(3),
      t.clipped ? "yes" : "no",
      t.records,
    ]),
  };
}
