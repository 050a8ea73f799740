import { type Command, Option } from "commander";
import { type CliContext, createCliRuntime } from "../context.ts";

interface Flags {
  env: "terminal" | "web";
  scale: "default" | "small";
  seed: string;
  out: string;
}

/**
 * `rehearsal experiment envs-loop`: base policy → verified search → balanced export → SFT (linear) →
 * pass@1/pass@8 on train and held-out tasks per tier → a second search round with the trained policy.
 */
export function registerExperimentEnvsLoop(experiment: Command, ctx: CliContext): void {
  experiment
    .command("envs-loop")
    .description(
      "ENVS closed loop: search with the base policy, balanced export, SFT of a linear policy (balanced vs uniform, 10/30/100 % of the data), pass@k vs base, and a second search round with the trained policy",
    )
    .addOption(
      new Option("--env <family>", "terminal (default: fast shell tasks) or web (real Chromium)")
        .choices(["terminal", "web"])
        .default("terminal"),
    )
    .addOption(
      new Option("--scale <scale>", "default (the reported run) or small (a quick check)")
        .choices(["default", "small"])
        .default("default"),
    )
    .option("--seed <seed>", "root seed of search, export fractions and evaluation", "0")
    .option("--out <dir>", "where results.json, the SVG, the data and checkpoints go", "experiment-envs-loop")
    .action(async (flags: Flags) => {
      const o = ctx.out();
      const { EnvsLoopOptionsSchema, envsLoopTable, runEnvsLoop, writeEnvsLoopOutputs } = await import(
        "../../experiments/envs-loop/index.ts"
      );
      const { createMemoryStore } = await import("../../store/index.ts");
      const options = EnvsLoopOptionsSchema.parse(flags);
      const store = createMemoryStore();
      try {
        const runtime = await createCliRuntime(options.seed);
        const results = await runEnvsLoop({ runtime, store, signals: ctx.signals() }, options, (m) =>
          o.warn(m),
        );
        const paths = writeEnvsLoopOutputs(options.out, results);
        o.result({ ...results, paths });
        const table = envsLoopTable(results);
        o.line(
          `envs-loop on ${options.env} (${options.scale}, seed ${options.seed}): pass@1 | pass@8 per split/tier`,
        );
        o.table(table.head, table.rows);
        const e = results.expertIteration;
        o.line(
          `round 2 (${results.best}): long tasks solved ${e.round2LongSolved}/${e.longTasks} (round 1: ${e.round1LongSolved}), successful long leaves ${e.round2LongSuccesses} (round 1: ${e.round1LongSuccesses}); newly solved: ${e.newlySolved.join(", ") || "none"}`,
        );
        o.line(`results: ${paths.json}, ${paths.svg} (${results.seconds.total?.toFixed(1)} s)`);
        if (results.status === "interrupted") {
          const { interruptedLine } = await import("../../experiments/interrupt.ts");
          const kept = `${results.rounds.length} search round(s), ${results.policies.length} evaluated policies`;
          o.warn(interruptedLine("experiment envs-loop", kept, paths.json));
        }
      } finally {
        store.close();
      }
    });
}
