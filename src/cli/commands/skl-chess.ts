import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { floatOption, intOption } from "../options.ts";
import { formatPercent } from "../output.ts";
import { knowledgeOption, seedAndOutDir, sklCommand } from "../skl-options.ts";
import { runSklExperiment } from "./skl.ts";

interface Flags {
  puzzles: number;
  maxRating: number;
  csv?: string;
  n: number;
  h: number;
  rates: number[];
  depth: number;
  kl: string;
  knowledge: string;
  seed: string;
  outDir: string;
  store: string;
}

const wins = (s: { wins: number; puzzles: number; winRate: number }) =>
  `${s.wins}/${s.puzzles} (${formatPercent(s.winRate)})`;

/** `rehearsal skl chess`: SKL-RL on chess puzzles per expert rate, against the acting policy alone. */
export function registerSklChess(skl: Command, ctx: CliContext): void {
  knowledgeOption(sklCommand(skl, "chess"), "only each rate's knowledge.jsonl in --out-dir")
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
    .action(async (flags: Flags) => {
      const { runChessSklRl, saveKnowledge } = await import("../../experiments/index.ts");
      const o = ctx.out();
      const options = {
        puzzleCount: flags.puzzles,
        maxRating: flags.maxRating,
        ...(flags.csv ? { csvPath: flags.csv } : {}),
        n: flags.n,
        h: flags.h,
        expertRates: flags.rates,
        engineDepth: flags.depth,
        klDirection: flags.kl as "forward",
        ...seedAndOutDir(flags),
      };
      const { runId, result, status } = await runSklExperiment(
        ctx,
        flags,
        "chess",
        options,
        runChessSklRl,
        (r) => ({
          manifest: r.manifest,
          rates: r.rates.map((x) => ({ label: x.label, skl: x.skl, baseline: x.baseline })),
        }),
      );
      const rates = result.rates.map(({ table: _table, ...r }) => r);
      const saved = await saveKnowledge(
        flags,
        runId,
        result.rates.map((r) => [r.label, r.table] as const),
      );
      const knowledge = saved.storage === "sqlite" ? { knowledge: saved } : {};
      o.result({
        runId,
        status,
        puzzleIds: result.puzzleIds,
        manifest: result.manifest,
        rates,
        ...knowledge,
      });
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
          wins(r.skl),
          r.skl.meanReward.toFixed(3),
          r.baseline ? wins(r.baseline) : "-",
          r.baseline ? r.baseline.meanReward.toFixed(3) : "-",
          r.realSteps,
          r.branches,
        ]),
      );
      o.line(`manifest: ${result.manifest}`);
    });
}
