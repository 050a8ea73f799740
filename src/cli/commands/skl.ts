import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import {
  createJsonFilePersistence,
  knowledgeFilePathFor,
  runChessSklRl,
  runFrozenLakeSklExperiment,
  runSklSdPipeline,
} from "../../knowledge/index.ts";
import { llmConfigFromEnv } from "../../llm/index.ts";
import { floatOption, intOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";

interface SklFlags {
  slip: string;
  trainMaps: number;
  testMaps: number;
  iterations: number;
  writer: string;
  episodesPerMap: number;
  seed: string;
  outDir: string;
  store: string;
}

/** `rehearsal skl frozenlake`: the SKL loops (SEEDS.md §2) on slippery FrozenLake. */
export function registerSkl(program: Command, out: () => Output): void {
  const skl = program.command("skl").description("stateful knowledge (SKL) experiments");
  skl
    .command("frozenlake")
    .description(
      "no reflection vs trajectory reflection vs stateful (root-only, bootstrapping) on train and held-out maps",
    )
    .option("--slip <kind>", "symmetric (1/3 each) | asymmetric (the paper's P = (0, 2/3))", "symmetric")
    .option("--train-maps <n>", "training maps", intOption, 50)
    .option("--test-maps <n>", "held-out maps", intOption, 50)
    .option("--iterations <n>", "iterations on the training maps", intOption, 10)
    .option(
      "--writer <name>",
      "knowledge writer: statistical | llm (REHEARSAL_LLM_* variables)",
      "statistical",
    )
    .option("--episodes-per-map <n>", "training episodes per map and iteration", intOption, 1)
    .option("--seed <seed>", "seed", "0")
    .option("--out-dir <dir>", "where the JSON report and the SVG chart go", "rehearsal-skl")
    .option(
      "--store <dir>",
      "run store directory: each method's final knowledge table is saved there",
      ".rehearsal",
    )
    .action(async (flags: SklFlags) => {
      const o = out();
      const { report, svg, tables } = await runFrozenLakeSklExperiment({
        slip: flags.slip as "symmetric",
        trainMaps: flags.trainMaps,
        testMaps: flags.testMaps,
        iterations: flags.iterations,
        writer: flags.writer as "statistical",
        ...(flags.writer === "llm" ? { llm: llmConfigFromEnv(process.env) } : {}),
        episodesPerMap: flags.episodesPerMap,
        seed: flags.seed,
      });
      mkdirSync(flags.outDir, { recursive: true });
      const jsonPath = join(flags.outDir, `skl-frozenlake-${flags.slip}.json`);
      const svgPath = join(flags.outDir, `skl-frozenlake-${flags.slip}.svg`);
      writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(svgPath, svg);
      // The final knowledge of each method, persisted in the run store's directory.
      mkdirSync(flags.store, { recursive: true });
      const knowledgeFiles: Record<string, string> = {};
      for (const [method, table] of Object.entries(tables)) {
        if (!table) continue;
        const path = knowledgeFilePathFor(join(flags.store, `skl-frozenlake-${flags.slip}-${method}`));
        await createJsonFilePersistence(path).save(table.keys().flatMap((k) => [...table.history(k)]));
        knowledgeFiles[method] = path;
      }
      o.result({ report, files: { json: jsonPath, svg: svgPath, knowledge: knowledgeFiles } });
      o.line(
        `SKL on FrozenLake (${flags.slip} slip, ${flags.trainMaps} train / ${flags.testMaps} held-out maps, ${flags.iterations} iterations, ${flags.writer} writer)`,
      );
      o.table(
        [
          "method",
          "iteration",
          "train success",
          "test success",
          "train good moves",
          "test good moves",
          "train→test drop",
        ],
        report.methods.flatMap((m) =>
          m.iterations.map((it) => [
            m.method,
            it.iteration,
            formatPercent(it.train.successRate),
            formatPercent(it.test.successRate),
            formatPercent(it.train.goodMoveRatio),
            formatPercent(it.test.goodMoveRatio),
            formatPercent(it.successDrop),
          ]),
        ),
      );
      o.line(`report: ${jsonPath}; chart: ${svgPath}`);
    });
  skl
    .command("chess")
    .description(
      "SKL-RL on chess puzzles: simulate N branches of H moves from each state, write z_hat, act; per expert rate",
    )
    .option("--puzzles <n>", "puzzles (rated below --max-rating)", intOption, 10)
    .option("--max-rating <r>", "only puzzles rated below this", intOption, 1000)
    .option("--csv <file>", "a Lichess-format puzzle CSV (default: the built-in sample)")
    .option("--n <n>", "branches per state (N)", intOption, 3)
    .option("--h <h>", "agent moves per branch (H)", intOption, 2)
    .option(
      "--rates <list>",
      "expert rates of the simulation policy",
      (v: string) => v.split(",").map((x) => floatOption(x.trim())),
      [1 / 2, 1 / 3, 1 / 6],
    )
    .option("--depth <d>", "Stockfish search depth", intOption, 4)
    .option(
      "--kl <direction>",
      "distillation objective recorded for (z, z_hat): forward | reverse",
      "forward",
    )
    .option("--seed <seed>", "seed", "0")
    .option(
      "--out-dir <dir>",
      "where trajectories, (z, z_hat) pairs and the manifest go",
      "rehearsal-skl-chess",
    )
    .action(
      async (flags: {
        puzzles: number;
        maxRating: number;
        csv?: string;
        n: number;
        h: number;
        rates: number[];
        depth: number;
        kl: string;
        seed: string;
        outDir: string;
      }) => {
        const o = out();
        const result = await runChessSklRl({
          puzzleCount: flags.puzzles,
          maxRating: flags.maxRating,
          ...(flags.csv ? { csvPath: flags.csv } : {}),
          n: flags.n,
          h: flags.h,
          expertRates: flags.rates,
          engineDepth: flags.depth,
          klDirection: flags.kl as "forward",
          seed: intOption(flags.seed),
          outDir: flags.outDir,
        });
        const rates = result.rates.map(({ table: _table, ...r }) => r);
        o.result({ puzzleIds: result.puzzleIds, manifest: result.manifest, rates });
        o.line(
          `SKL-RL on ${result.puzzleIds.length} chess puzzles (N ${flags.n}, H ${flags.h}, Stockfish depth ${flags.depth})`,
        );
        o.table(
          [
            "expert rate",
            "SKL-RL wins",
            "SKL-RL mean reward",
            "baseline wins",
            "baseline mean reward",
            "real steps",
            "branches",
          ],
          rates.map((r) => [
            r.label,
            `${r.skl.wins}/${r.skl.puzzles} (${formatPercent(r.skl.winRate)})`,
            r.skl.meanReward.toFixed(3),
            r.baseline
              ? `${r.baseline.wins}/${r.baseline.puzzles} (${formatPercent(r.baseline.winRate)})`
              : "-",
            r.baseline ? r.baseline.meanReward.toFixed(3) : "-",
            r.realSteps,
            r.branches,
          ]),
        );
        o.line(`manifest: ${result.manifest}`);
      },
    );
  skl
    .command("sd")
    .description(
      "SKL-SD on FrozenLake: D_base, D_distill and D_reflect as TRL JSONL, with λ1 and λ2 in a manifest",
    )
    .option("--maps <n>", "training maps", intOption, 50)
    .option("--iterations <n>", "iterations", intOption, 1)
    .option("--slip <kind>", "symmetric | asymmetric | none", "symmetric")
    .option(
      "--writer <name>",
      "knowledge writer: statistical | llm (REHEARSAL_LLM_* variables)",
      "statistical",
    )
    .option(
      "--sample-fraction <f>",
      "bootstrap on this uniform fraction of the failed episodes' states (paper: 0.2)",
      floatOption,
      1,
    )
    .option("--lambda1 <x>", "weight of PG(D_distill)", floatOption, 1)
    .option("--lambda2 <x>", "weight of SFT(D_reflect)", floatOption, 1)
    .option("--seed <seed>", "seed", "0")
    .option("--out-dir <dir>", "where the datasets and the manifest go", "rehearsal-skl-sd")
    .action(
      async (flags: {
        maps: number;
        iterations: number;
        slip: string;
        writer: string;
        sampleFraction: number;
        lambda1: number;
        lambda2: number;
        seed: string;
        outDir: string;
      }) => {
        const o = out();
        const result = await runSklSdPipeline({
          maps: flags.maps,
          iterations: flags.iterations,
          slip: flags.slip as "symmetric",
          writer: flags.writer as "statistical",
          ...(flags.writer === "llm" ? { llm: llmConfigFromEnv(process.env) } : {}),
          sampleFraction: flags.sampleFraction,
          lambda1: flags.lambda1,
          lambda2: flags.lambda2,
          seed: intOption(flags.seed),
          outDir: flags.outDir,
        });
        o.result({ manifest: result.manifest, paths: result.paths });
        o.line(
          `SKL-SD on ${flags.maps} FrozenLake maps (${flags.slip} slip, ${flags.writer} writer): L = PG(D_base) + ${flags.lambda1}·PG(D_distill) + ${flags.lambda2}·SFT(D_reflect)`,
        );
        o.table(
          ["dataset", "records", "file"],
          [
            ["D_base", result.records.base.length, result.paths.base],
            ["D_distill", result.records.distill.length, result.paths.distill],
            ["D_reflect", result.records.reflect.length, result.paths.reflect],
          ],
        );
      },
    );
}
