import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Environment } from "../../core/environment.ts";
import type { Policy } from "../../core/policy.ts";
import { createFrozenLakeEnvironment } from "../../envs/frozenlake/environment.ts";
import { memoryRecorder } from "../../knowledge/play-episode.ts";
import { createOraclePolicy } from "../../policies/oracle-policy.ts";
import { Parameters } from "../../policies/trainable/log-linear.ts";
import { createTrainablePolicy } from "../../policies/trainable/trainable-policy.ts";
import { trainSft } from "../../train/sft.ts";
import type { SftExample } from "../../train/sft-records.ts";
import { runSklSdPipeline, type SklSdResult } from "../frozenlake/sd-pipeline.ts";
import { unlessStopped, writeJsonFile } from "../interrupt.ts";
import { collectControlBase, controlMixes } from "./control.ts";
import { evaluateSplit } from "./evaluate.ts";
import { actingExamples, reflectExamples } from "./examples.ts";
import { type ExperimentMaps, experimentMaps } from "./maps.ts";
import { parseSklSdTrainOptions, type SklSdTrainConfig, type SklSdTrainOptionsInput } from "./options.ts";
import { sklSdSvg, sklSdTable } from "./report.ts";
import {
  isControl,
  SD_ROWS,
  type SdRowName,
  type SklSdResults,
  SklSdResultsSchema,
  type SklSdRow,
  summarize,
} from "./results.ts";

export interface SklSdTrainRun {
  results: SklSdResults;
  table: string;
  paths: { results: string; svg: string };
}

export interface SklSdTrainDeps {
  /** Called after each (seed, mix) row is measured. */
  onRow?: (row: SklSdRow) => void;
  /** A stop request (the CLI's SIGINT/SIGTERM): the rows completed are kept, `status: "interrupted"`. */
  signal?: AbortSignal;
}

function pipelineInput(config: SklSdTrainConfig, seed: number | string, outDir: string) {
  return {
    maps: config.maps,
    mapSize: config.mapSize,
    horizon: config.horizon,
    iterations: config.iterations,
    slip: config.slip,
    lambda1: config.lambda1,
    lambda2: config.lambda2,
    seed,
    outDir,
  };
}

interface SeedContext {
  config: SklSdTrainConfig;
  maps: ExperimentMaps;
  env: Environment;
  signal: AbortSignal | undefined;
}

/**
 * Trains the linear policy on `parts` (nothing for the references) and scores it on both splits (a stop
 * request ends the episode in flight and throws its reason).
 */
async function measureRow(
  ctx: SeedContext,
  seed: number,
  mix: SdRowName,
  parts: SftExample[][],
): Promise<SklSdRow> {
  const { config, maps } = ctx;
  const examples = parts.flat().filter((e) => e.weight > 0);
  const trained =
    examples.length === 0
      ? null
      : trainSft(
          examples,
          { kind: "linear", epochs: config.epochs, learningRate: config.learningRate, l2: config.l2 },
          { family: "frozenlake", seed: String(seed) },
        );
  const policy: Policy =
    mix === "oracle"
      ? createOraclePolicy()
      : createTrainablePolicy("linear", Parameters.from(trained?.checkpoint.weights ?? {}), mix);
  // The untrained linear policy at T = 1 is the uniform random policy over the four moves.
  const temperature = mix === "random" ? 1 : config.temperature;
  const spec = {
    env: ctx.env,
    suite: maps.suite,
    seed,
    episodes: config.evalEpisodes,
    horizon: config.horizon,
    temperature,
    signal: ctx.signal,
  };
  const train = await evaluateSplit(spec, policy, maps.trainIds, `${mix}:train`);
  const heldout = await evaluateSplit(spec, policy, maps.heldoutIds, `${mix}:heldout`);
  const control = isControl(mix);
  return {
    seed,
    mix,
    examples: {
      base: parts[0]?.length ?? 0,
      distill: control ? 0 : (parts[1]?.length ?? 0),
      reflect: control ? 0 : (parts[2]?.length ?? 0),
      ...(control ? { extraBase: parts[1]?.length ?? 0 } : {}),
    },
    totalWeight: examples.reduce((a, e) => a + e.weight, 0),
    finalLoss: trained?.curve.at(-1)?.loss ?? null,
    train,
    heldout,
  };
}

/** The SKL-SD pipeline of one seed (its files under `data-seed-S/`); undefined when a stop cut it short. */
async function seedPipeline(ctx: SeedContext, seed: number): Promise<SklSdResult | undefined> {
  const dir = join(ctx.config.outDir, `data-seed-${seed}`);
  const recorder = {
    ...memoryRecorder(String(seed), "skl-sd"),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const run = await runSklSdPipeline(pipelineInput(ctx.config, seed, dir), { recorder });
  return run.interrupted ? undefined : run;
}

/**
 * One seed's rows, from its pipeline and the D_base of the other seeds' (`others`, in seed order) for
 * the controls (more runs when they do not suffice); `emit` gets the seed's data and each row as it
 * completes. False when a stop request cut the seed short.
 */
async function runSeed(
  ctx: SeedContext,
  seed: number,
  pipeline: SklSdResult,
  others: ReadonlyArray<[number, SklSdResult]>,
  emit: { data: (d: SklSdResults["data"][number]) => void; row: (r: SklSdRow) => void },
): Promise<boolean> {
  const { config, maps, signal } = ctx;
  const dataDir = join(config.outDir, `data-seed-${seed}`);
  const input = (s: number | string, dir: string) => pipelineInput(config, s, dir);
  const base = actingExamples(maps.suite, pipeline.records.base, 1);
  const distill = actingExamples(maps.suite, pipeline.records.distill, config.lambda1);
  const reflect = reflectExamples(maps.suite, pipeline.records.reflect, config.lambda2);
  const needed = distill.length + reflect.length;
  const borrowed = others.flatMap(([, p]) => p.records.base);
  const more = await collectControlBase(input, seed, dataDir, needed, borrowed, signal);
  if (more.interrupted) return false;
  const iterations = pipeline.manifest.iterations;
  emit.data({
    seed,
    records: {
      base: pipeline.records.base.length,
      distill: pipeline.records.distill.length,
      reflect: pipeline.records.reflect.length,
    },
    reflectProjected: reflect.length,
    baseSuccesses: iterations.reduce((a, i) => a + i.baseSuccesses, 0),
    baseEpisodes: iterations.reduce((a, i) => a + i.baseEpisodes, 0),
    dataDir,
    control: {
      fromSeeds: others.map(([s]) => s),
      borrowedRecords: borrowed.length,
      pipelineSeeds: more.pipelineSeeds,
      baseRecords: more.records.length,
      needed,
      matched: more.records.length >= needed,
    },
  });
  const extra = actingExamples(maps.suite, more.records, 1);
  const mixes: Record<SdRowName, SftExample[][]> = {
    random: [],
    oracle: [],
    base: [base],
    "base+distill": [base, distill],
    "base+distill+reflect": [base, distill, reflect],
    ...controlMixes(base, extra, distill, reflect),
  };
  for (const mix of SD_ROWS) {
    const row = await unlessStopped(signal, () => measureRow(ctx, seed, mix, mixes[mix]));
    if (!row) return false;
    emit.row(row);
  }
  return true;
}

/**
 * `rehearsal experiment skl-sd`: per seed, the SKL-SD data pipeline (model-free statistical writer)
 * on the training maps; SFT of the linear policy (`src/train`, local FrozenLake features) on D_base,
 * on D_base + λ1·D_distill and on D_base + λ1·D_distill + λ2·D_reflect (reflect projected to
 * (state, best known action) examples, see `examples.ts`), and on the data-size controls (D_base plus
 * extra D_base, from the other seeds' pipelines and more runs, as many examples and as much weight as
 * each larger mix, see `control.ts`); each policy, and the references (random, oracle), evaluated in the real environment
 * on the training maps and on held-out maps no training data comes from. Writes `results.json`
 * (validated; rewritten after each row with `status: "running"`), `pass1.svg` and the pipelines'
 * files per seed under `outDir`. Deterministic per seed. On a stop request (`deps.signal`) the rows
 * completed are kept and the file says `status: "interrupted"`.
 */
export async function runSklSdTrainExperiment(
  input: SklSdTrainOptionsInput,
  deps: SklSdTrainDeps = {},
): Promise<SklSdTrainRun> {
  const config = parseSklSdTrainOptions(input);
  const maps = experimentMaps(config.mapSize, config.maps, config.heldoutMaps);
  const env = createFrozenLakeEnvironment(
    {
      horizon: config.horizon,
      slippery: config.slip !== "none",
      ...(config.slip === "asymmetric" ? { perpendicular: { left: 0, right: 2 / 3 } } : {}),
    },
    { suite: maps.suite },
  );
  await mkdir(config.outDir, { recursive: true });
  const paths = { results: join(config.outDir, "results.json"), svg: join(config.outDir, "pass1.svg") };
  const rows: SklSdRow[] = [];
  const data: SklSdResults["data"] = [];
  const snapshot = (status: SklSdResults["status"]) =>
    SklSdResultsSchema.parse({
      experiment: "skl-sd",
      version: 1,
      status,
      config: { ...config },
      maps: { train: maps.trainIds, heldout: maps.heldoutIds, heldoutRejected: maps.rejected },
      data,
      rows,
      summary: summarize(rows),
    });
  const ctx: SeedContext = { config, maps, env, signal: deps.signal };
  let complete = true;
  try {
    // Every seed's pipeline first: each seed's controls borrow the D_base of the others.
    const pipelines: Array<[number, SklSdResult]> = [];
    for (const seed of config.seeds) {
      const run = await seedPipeline(ctx, seed);
      if (!run) break;
      pipelines.push([seed, run]);
    }
    if (pipelines.length < config.seeds.length) complete = false;
    for (const [seed, pipeline] of complete ? pipelines : []) {
      const others = pipelines.filter(([s]) => s !== seed);
      const done = await runSeed(ctx, seed, pipeline, others, {
        data: (d) => data.push(d),
        row: (r) => {
          rows.push(r);
          writeJsonFile(paths.results, snapshot("running"));
          deps.onRow?.(r);
        },
      });
      if (!done) {
        complete = false;
        break;
      }
    }
  } finally {
    await env.close();
  }
  const results = snapshot(complete ? "complete" : "interrupted");
  writeJsonFile(paths.results, results);
  await writeFile(paths.svg, sklSdSvg(results));
  return { results, table: sklSdTable(results), paths };
}
