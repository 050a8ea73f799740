import { join } from "node:path";
import type { SdActionRecord } from "../../export/skl-sd-datasets.ts";
import { memoryRecorder } from "../../knowledge/play-episode.ts";
import type { SftExample } from "../../train/sft-records.ts";
import type { SklSdOptionsInput } from "../frozenlake/sd-options.ts";
import { runSklSdPipeline } from "../frozenlake/sd-pipeline.ts";
import type { SD_CONTROLS } from "./results.ts";

/** At most this many extra pipeline runs per seed collect the controls' D_base. */
export const MAX_CONTROL_RUNS = 8;

/** The seed of the `k`-th extra pipeline run of experiment seed `seed` (never an experiment seed). */
export function controlSeed(seed: number, k: number): string {
  return `${seed}:control-base:${k}`;
}

export interface ControlBase {
  /** Extra D_base records in the order collected (run by run, episode by episode, step by step). */
  records: SdActionRecord[];
  pipelineSeeds: string[];
  /** True when a stop request ended a run: the controls cannot be built. */
  interrupted: boolean;
}

/**
 * More D_base with the same procedure (the SKL-SD pipeline on the same training maps with the same
 * options and other seeds, of which only D_base is kept: successful base rollouts with the knowledge as
 * it was then): first `borrowed`, the D_base of the experiment's other seeds' pipelines (already run),
 * then, while fewer than `needed` records are at hand, new runs with `controlSeed` seeds (their
 * D_distill and D_reflect dropped), at most `MAX_CONTROL_RUNS`. Each new run's files go to
 * `dataDir/control-K/`.
 */
export async function collectControlBase(
  pipelineInput: (seed: string, outDir: string) => SklSdOptionsInput,
  seed: number,
  dataDir: string,
  needed: number,
  borrowed: ReadonlyArray<SdActionRecord>,
  signal?: AbortSignal,
): Promise<ControlBase> {
  const records: SdActionRecord[] = [...borrowed];
  const pipelineSeeds: string[] = [];
  for (let k = 1; records.length < needed && k <= MAX_CONTROL_RUNS; k++) {
    const s = controlSeed(seed, k);
    const recorder = { ...memoryRecorder(s, "skl-sd-control"), ...(signal ? { signal } : {}) };
    const run = await runSklSdPipeline(pipelineInput(s, join(dataDir, `control-${k}`)), { recorder });
    if (run.interrupted) return { records, pipelineSeeds, interrupted: true };
    pipelineSeeds.push(s);
    records.push(...run.records.base);
  }
  return { records, pipelineSeeds, interrupted: false };
}

/**
 * The control mixes: D_base plus the first extra D_base examples, as many as the matched mix adds
 * (D_distill, then the projected D_reflect), each extra example carrying the weight of the example it
 * stands for (λ1, then λ2): the same example count and the same total weight. The controls nest like
 * the mixes (the second extends the first). The cut may fall inside an episode (its first steps).
 */
export function controlMixes(
  base: SftExample[],
  extra: SftExample[],
  distill: ReadonlyArray<SftExample>,
  reflect: ReadonlyArray<SftExample>,
): Record<(typeof SD_CONTROLS)[number], SftExample[][]> {
  const like = (from: number, standIns: ReadonlyArray<SftExample>) =>
    extra.slice(from, from + standIns.length).map((e, i) => ({ ...e, weight: standIns[i]?.weight ?? 1 }));
  const forDistill = like(0, distill);
  const forReflect = like(distill.length, reflect);
  return {
    "base+base(=distill)": [base, forDistill],
    "base+base(=distill+reflect)": [base, [...forDistill, ...forReflect]],
  };
}
