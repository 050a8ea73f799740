import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { runFrozenLakeSklExperiment } from "../../experiments/index.ts";
import { createJsonFilePersistence, knowledgeFilePathFor, tableEntries } from "../../knowledge/index.ts";
import type { CliContext } from "../context.ts";
import { intOption } from "../options.ts";
import { formatPercent } from "../output.ts";
import { runSklExperiment, sklCommand, writerOption, writerOptions } from "./skl.ts";

interface Flags {
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

/** `rehearsal skl frozenlake`: the four SKL loops on slippery FrozenLake, train and held-out maps. */
export function registerSklFrozenLake(skl: Command, ctx: CliContext): void {
  writerOption(sklCommand(skl, "frozenlake"))
    .option("--slip <kind>", "symmetric (1/3 each) | asymmetric (the paper's P = (0, 2/3))", "symmetric")
    .option("--train-maps <n>", "training maps", intOption, 50)
    .option("--test-maps <n>", "held-out maps", intOption, 50)
    .option("--iterations <n>", "iterations on the training maps", intOption, 10)
    .option("--episodes-per-map <n>", "training episodes per map and iteration", intOption, 1)
    .action(async (flags: Flags) => {
      const o = ctx.out();
      const options = {
        slip: flags.slip as "symmetric",
        trainMaps: flags.trainMaps,
        testMaps: flags.testMaps,
        iterations: flags.iterations,
        ...writerOptions(flags.writer),
        episodesPerMap: flags.episodesPerMap,
        seed: flags.seed,
      };
      const { runId, result } = await runSklExperiment(
        ctx,
        flags,
        "frozenlake",
        options,
        runFrozenLakeSklExperiment,
        (r) => ({ methods: r.report.methods.map((m) => ({ method: m.method, ...m.final })) }),
      );
      const { report, svg, tables } = result;
      const name = `skl-frozenlake-${flags.slip}`;
      const jsonPath = join(flags.outDir, `${name}.json`);
      const svgPath = join(flags.outDir, `${name}.svg`);
      mkdirSync(flags.outDir, { recursive: true });
      writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(svgPath, svg);
      const knowledge: Record<string, string> = {};
      for (const [method, table] of Object.entries(tables)) {
        if (!table) continue;
        knowledge[method] = knowledgeFilePathFor(join(flags.store, `${name}-${method}`));
        await createJsonFilePersistence(knowledge[method]).save(tableEntries(table));
      }
      o.result({ runId, report, files: { json: jsonPath, svg: svgPath, knowledge } });
      o.line(
        `SKL on FrozenLake (${flags.slip} slip, ${flags.trainMaps} train / ${flags.testMaps} held-out maps, ${flags.iterations} iterations, ${flags.writer} writer), run ${runId}`,
      );
      const pct = formatPercent;
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
            pct(it.train.successRate),
            pct(it.test.successRate),
            pct(it.train.goodMoveRatio),
            pct(it.test.goodMoveRatio),
            pct(it.successDrop),
          ]),
        ),
      );
      o.line(`report: ${jsonPath}; chart: ${svgPath}`);
    });
}
