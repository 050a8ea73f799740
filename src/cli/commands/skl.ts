import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { runFrozenLakeSklExperiment } from "../../knowledge/index.ts";
import { intOption } from "../options.ts";
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
    .option("--writer <name>", "knowledge writer: statistical", "statistical")
    .option("--episodes-per-map <n>", "training episodes per map and iteration", intOption, 1)
    .option("--seed <seed>", "seed", "0")
    .option("--out-dir <dir>", "where the JSON report and the SVG chart go", "rehearsal-skl")
    .action(async (flags: SklFlags) => {
      const o = out();
      const { report, svg } = await runFrozenLakeSklExperiment({
        slip: flags.slip as "symmetric",
        trainMaps: flags.trainMaps,
        testMaps: flags.testMaps,
        iterations: flags.iterations,
        writer: flags.writer as "statistical",
        episodesPerMap: flags.episodesPerMap,
        seed: flags.seed,
      });
      mkdirSync(flags.outDir, { recursive: true });
      const jsonPath = join(flags.outDir, `skl-frozenlake-${flags.slip}.json`);
      const svgPath = join(flags.outDir, `skl-frozenlake-${flags.slip}.svg`);
      writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(svgPath, svg);
      o.result({ report, files: { json: jsonPath, svg: svgPath } });
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
}
