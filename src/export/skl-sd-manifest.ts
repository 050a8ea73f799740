import { join } from "node:path";
import { sha256Hex } from "../core/hash.ts";
import { writeFileAtomic } from "./output-file.ts";
import { SKL_DATASET_OPERATION, toJsonl } from "./skl-jsonl.ts";
import type { SdActionRecord, SdReflectRecord } from "./skl-sd-datasets.ts";

export const SD_FILES = {
  base: "d_base.jsonl",
  distill: "d_distill.jsonl",
  reflect: "d_reflect.jsonl",
  manifest: "manifest.json",
} as const;

export const SKL_SD_LOSS = "L = PG(D_base) + λ1·PG(D_distill) + λ2·SFT(D_reflect)";

export interface SklSdIterationStats {
  iteration: number;
  baseEpisodes: number;
  baseSuccesses: number;
  failed: number;
  /** Distinct states of the failed episodes, and how many of them the bootstrapping updated (sampled). */
  statesConsidered: number;
  statesSampled: number;
  updates: number;
  retries: number;
  retrySuccesses: number;
}

export interface SklSdManifest {
  kind: "skl-sd";
  version: 1;
  loss: {
    formula: string;
    lambda1: number;
    lambda2: number;
    terms: Array<{
      dataset: "base" | "distill" | "reflect";
      loss: "PG" | "SFT";
      weight: number;
      file: string;
    }>;
  };
  files: Record<"base" | "distill" | "reflect", { path: string; records: number; sha256: string }>;
  iterations: SklSdIterationStats[];
  writer: string;
  taskIds: string[];
  /** The options (without `outDir`, and without an LLM API key). */
  options: Record<string, unknown>;
  /** Present when a stop request ended the run early: the files hold the completed iterations. */
  interrupted?: true;
}

/** What the pipeline produced, for the manifest. */
export interface SdRunSummary {
  iterations: SklSdIterationStats[];
  writer: string;
  taskIds: string[];
  interrupted?: boolean;
}

/** Where the files go, the loss weights, and the options to record (already without secrets). */
export interface SdOutput {
  outDir: string;
  lambda1: number;
  lambda2: number;
  options: Record<string, unknown>;
}

/** Writes the three SKL-SD JSONL datasets and the manifest under `options.outDir` (byte-stable). */
export async function writeSdFiles(
  options: SdOutput,
  records: { base: SdActionRecord[]; distill: SdActionRecord[]; reflect: SdReflectRecord[] },
  summary: SdRunSummary,
): Promise<{ manifest: SklSdManifest; paths: Record<keyof typeof SD_FILES, string> }> {
  const texts = {
    base: toJsonl(records.base),
    distill: toJsonl(records.distill),
    reflect: toJsonl(records.reflect),
  };
  const fileInfo = (k: "base" | "distill" | "reflect") => ({
    path: SD_FILES[k],
    records: records[k].length,
    sha256: sha256Hex(texts[k]),
  });
  const manifest: SklSdManifest = {
    kind: "skl-sd",
    version: 1,
    loss: {
      formula: SKL_SD_LOSS,
      lambda1: options.lambda1,
      lambda2: options.lambda2,
      terms: [
        { dataset: "base", loss: "PG", weight: 1, file: SD_FILES.base },
        { dataset: "distill", loss: "PG", weight: options.lambda1, file: SD_FILES.distill },
        { dataset: "reflect", loss: "SFT", weight: options.lambda2, file: SD_FILES.reflect },
      ],
    },
    files: { base: fileInfo("base"), distill: fileInfo("distill"), reflect: fileInfo("reflect") },
    iterations: summary.iterations,
    writer: summary.writer,
    taskIds: summary.taskIds,
    options: options.options,
    ...(summary.interrupted ? { interrupted: true as const } : {}),
  };
  const paths = {
    base: join(options.outDir, SD_FILES.base),
    distill: join(options.outDir, SD_FILES.distill),
    reflect: join(options.outDir, SD_FILES.reflect),
    manifest: join(options.outDir, SD_FILES.manifest),
  };
  // Each file is replaced whole (written beside it, then renamed); the manifest last, once its files are in.
  writeFileAtomic(paths.base, SKL_DATASET_OPERATION, texts.base);
  writeFileAtomic(paths.distill, SKL_DATASET_OPERATION, texts.distill);
  writeFileAtomic(paths.reflect, SKL_DATASET_OPERATION, texts.reflect);
  writeFileAtomic(paths.manifest, SKL_DATASET_OPERATION, `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, paths };
}
