import { join } from "node:path";
import type { Command } from "commander";
import type { KnowledgeTable } from "../../knowledge/index.ts";
import type { CliContext } from "../context.ts";
import { intOption } from "../options.ts";
import { formatPercent } from "../output.ts";
import { knowledgeOption, sklCommand, writerOption, writerOptions } from "../skl-options.ts";
import { runSklExperiment } from "./skl.ts";

interface Flags {
  slip: string;
  trainMaps: number;
  testMaps: number;
  iterations: number;
  writer: string;
  episodesPerMap: number;
  knowledge: string;
  seed: string;
  outDir: string;
  store: string;
}

/** `rehearsal skl frozenlake`: the four SKL loops on slippery FrozenLake, train and held-out maps. */
export function registerSklFrozenLake(skl: Command, ctx: CliContext): void {
  knowledgeOption(writerOption(sklCommand(skl, "frozenlake")), "<store>/<report>-<method>.knowledge.json")
    .option("--slip <kind>", "symmetric (1/3 each) | asymmetric (the paper's P = (0, 2/3))", "symmetric")
    .option("--train-maps <n>", "training maps", intOption, 50)
    .option("--test-maps <n>", "held-out maps", intOption, 50)
    .option("--iterations <n>", "iterations on the training maps", intOption, 10)
    .option("--episodes-per-map <n>", "training episodes per map and iteration", intOption, 1)
    .action(async (flags: Flags) => {
      const { runFrozenLakeSklExperiment, saveKnowledge } = await import("../../experiments/index.ts");
      const { writeFileAtomic } = await import("../../export/index.ts");
      const o = ctx.out();
      const options = {
        slip: flags.slip as "symmetric",
        trainMaps: flags.trainMaps,
        testMaps: flags.testMaps,
        iterations: flags.iterations,
        ...(await writerOptions(flags.writer)),
        episodesPerMap: flags.episodesPerMap,
        seed: flags.seed,
      };
      const { runId, result, status } = await runSklExperiment(
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
      writeFileAtomic(jsonPath, "SKL report", `${JSON.stringify(report, null, 2)}\n`);
      writeFileAtomic(svgPath, "SKL chart", svg);
      const saved = await saveKnowledge(
        flags,
        runId,
        Object.entries(tables).filter((e): e is [string, KnowledgeTable] => e[1] !== undefined),
        name,
      );
      const files = {
        json: jsonPath,
        svg: svgPath,
        knowledge: saved.tables,
        knowledgeStorage: saved.storage,
        ...(saved.database ? { knowledgeDatabase: saved.database } : {}),
      };
      o.result({ runId, status, report, files });
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
