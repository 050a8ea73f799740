import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UserError } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import { collectExamples } from "./examples.ts";
import { type FormatOptions, type ObservationMode, toShareGptRecord, toTrlRecord } from "./formats.ts";
import { type MaterializedTask, materializeWeights } from "./materialize.ts";

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
}

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
 * Screenshots are copied next to the file (`<out>.images/<sha>.png`) and referenced relatively.
 * The same store, options and seed give a byte-identical file.
 */
export function exportSft(store: RunStore, options: SftExportOptions): SftExportReport {
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
  const lines: string[] = [];
  const recordsPerTask = new Map<string, number>();
  for (const e of rows) {
    const record =
      options.format === "trl"
        ? toTrlRecord(e, formatOptions, stats.get(e.taskId))
        : toShareGptRecord(e, formatOptions, stats.get(e.taskId));
    lines.push(JSON.stringify(record));
    recordsPerTask.set(e.taskId, (recordsPerTask.get(e.taskId) ?? 0) + 1);
  }
  mkdirSync(dirname(options.out) || ".", { recursive: true });
  writeFileSync(options.out, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  if (images.size > 0) {
    mkdirSync(imagesDir, { recursive: true });
    for (const sha of [...images].sort()) {
      const target = join(imagesDir, `${sha}.png`);
      if (existsSync(target)) continue;
      const bytes = store.getArtefact(sha);
      if (!bytes)
        throw new UserError(
          "export.missing_artefact",
          `screenshot ${sha} is missing from the store's artefacts; the store may be incomplete`,
        );
      writeFileSync(target, bytes);
    }
  }
  return {
    out: options.out,
    records: lines.length,
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
