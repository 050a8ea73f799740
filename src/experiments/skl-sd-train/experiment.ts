import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Policy } from "../../core/policy.ts";
import { createFrozenLakeEnvironment } from "../../envs/frozenlake/environment.ts";
import { createOraclePolicy } from "../../policies/oracle-policy.ts";
import { Parameters } from "../../policies/trainable/log-linear.ts";
import { createTrainablePolicy } from "../../policies/trainable/trainable-policy.ts";
import { trainSft } from "../../train/sft.ts";
import type { SftExample } from "../../train/sft-records.ts";
import { runSklSdPipeline } from "../frozenlake/sd-pipeline.ts";
import { evaluateSplit } from "./evaluate.ts";
import { actingExamples, reflectExamples } from "./examples.ts";
import { experimentMaps } from "./maps.ts";
import { parseSklSdTrainOptions, type SklSdTrainConfig, type SklSdTrainOptionsInput } from "./options.ts";
import { sklSdSvg, sklSdTable } from "./report.ts";
import {
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
}

function pipelineInput(config: SklSdTrainConfig, seed: number) {
  return {
    maps: config.maps,
    mapSize: config.mapSize,
    horizon: config.horizon,
    iterations: config.iterations,
    slip: config.slip,
    lambda1: config.lambda1,
    lambda2: config.lambda2,
    seed,
    outDir: join(config.outDir, `data-seed-${seed}`),
  };
}

/**
 * `rehearsal experiment skl-sd`: per seed, the SKL-SD data pipeline (model-free statistical writer)
 * on the training maps; SFT of the linear policy (`src/train`, local FrozenLake features) on D_base,
 * on D_base + λ1·D_distill and on D_base + λ1·D_distill + λ2·D_reflect (reflect projected to
 * (state, best known action) examples, see `examples.ts`); each policy, and the references (random,
 * oracle), evaluated in the real environment on the training maps and on held-out maps no training data comes
 * from. Writes `results.json` (validated), `pass1.svg` and the pipeline's files per seed under
 * `outDir`. Deterministic per seed.
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
  const rows: SklSdRow[] = [];
  const data: SklSdResults["data"] = [];
  try {
    for (const seed of config.seeds) {
      const pipeline = await runSklSdPipeline(pipelineInput(config, seed));
      const base = actingExamples(maps.suite, pipeline.records.base, 1);
      const distill = actingExamples(maps.suite, pipeline.records.distill, config.lambda1);
      const reflect = reflectExamples(maps.suite, pipeline.records.reflect, config.lambda2);
      const iterations = pipeline.manifest.iterations;
      data.push({
        seed,
        records: {
          base: pipeline.records.base.length,
          distill: pipeline.records.distill.length,
          reflect: pipeline.records.reflect.length,
        },
        reflectProjected: reflect.length,
        baseSuccesses: iterations.reduce((a, i) => a + i.baseSuccesses, 0),
        baseEpisodes: iterations.reduce((a, i) => a + i.baseEpisodes, 0),
        dataDir: pipelineInput(config, seed).outDir,
      });
      const mixes: Record<SdRowName, SftExample[][]> = {
        random: [],
        oracle: [],
        base: [base],
        "base+distill": [base, distill],
        "base+distill+reflect": [base, distill, reflect],
      };
      for (const mix of SD_ROWS) {
        const parts = mixes[mix];
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
          env,
          suite: maps.suite,
          seed,
          episodes: config.evalEpisodes,
          horizon: config.horizon,
          temperature,
        };
        const row: SklSdRow = {
          seed,
          mix,
          examples: {
            base: parts[0]?.length ?? 0,
            distill: parts[1]?.length ?? 0,
            reflect: parts[2]?.length ?? 0,
          },
          finalLoss: trained?.curve.at(-1)?.loss ?? null,
          train: await evaluateSplit(spec, policy, maps.trainIds, `${mix}:train`),
          heldout: await evaluateSplit(spec, policy, maps.heldoutIds, `${mix}:heldout`),
        };
        rows.push(row);
        deps.onRow?.(row);
      }
    }
  } finally {
    await env.close();
  }
  const results = SklSdResultsSchema.parse({
    experiment: "skl-sd",
    version: 1,
    config: { ...config },
    maps: { train: maps.trainIds, heldout: maps.heldoutIds, heldoutRejected: maps.rejected },
    data,
    rows,
    summary: summarize(rows),
  });
  await mkdir(config.outDir, { recursive: true });
  const paths = { results: join(config.outDir, "results.json"), svg: join(config.outDir, "pass1.svg") };
  await writeFile(paths.results, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(paths.svg, sklSdSvg(results));
  return { results, table: sklSdTable(results), paths };
}
