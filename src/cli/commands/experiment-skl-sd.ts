import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { floatOption, listOption, positiveIntOption } from "../options.ts";

interface SklSdFlags {
  out: string;
  scale: string;
  seeds?: string[] | "all";
  maps?: number;
  heldoutMaps?: number;
  iterations?: number;
  evalEpisodes?: number;
  epochs?: number;
  lambda1?: number;
  lambda2?: number;
  temperature?: number;
  slip?: string;
}

/** The optional flags (the scale's sizes when absent): flag, description, parser. */
const FLAGS: ReadonlyArray<[string, string, ((value: string) => unknown)?]> = [
  ["--seeds <list>", "seeds, comma-separated (default: 0,1,2; small: 0,1)", listOption],
  ["--maps <n>", "training maps (5x5, seeded)", positiveIntOption],
  ["--heldout-maps <n>", "held-out maps (other seeded maps, none in the training data)", positiveIntOption],
  ["--iterations <n>", "SKL-SD pipeline iterations", positiveIntOption],
  ["--eval-episodes <n>", "evaluation episodes per map and policy", positiveIntOption],
  ["--epochs <n>", "SFT epochs (full-batch gradient steps)", positiveIntOption],
  ["--lambda1 <w>", "weight of D_distill examples", floatOption],
  ["--lambda2 <w>", "weight of D_reflect examples", floatOption],
  ["--slip <kind>", "symmetric (Gymnasium's 1/3 each, default), asymmetric or none"],
  ["--temperature <t>", "temperature of the trained policies when scored (0: greedy)", floatOption],
];

const defined = (entries: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));

/**
 * `rehearsal experiment skl-sd`: SFT of the linear policy on D_base vs D_base + D_distill (+ D_reflect)
 * from the SKL-SD pipeline (FrozenLake), scored in the real environment on training and held-out maps.
 */
export function registerExperimentSklSd(experiment: Command, ctx: CliContext): void {
  const command = experiment
    .command("skl-sd")
    .description(
      "SFT on SKL-SD's D_base vs D_base + D_distill + D_reflect and size-matched D_base controls (FrozenLake), pass@1 on training and held-out maps",
    )
    .option("--out <dir>", "where results.json, pass1.svg and the datasets per seed go", "experiment-skl-sd")
    .option("--scale <scale>", "default (the reported run) or small (seconds, for tests)", "default");
  for (const [flag, description, parse] of FLAGS)
    if (parse) command.option(flag, description, parse);
    else command.option(flag, description);
  command.action(async (flags: SklSdFlags) => {
    const o = ctx.out();
    const seeds = flags.seeds === undefined || flags.seeds === "all" ? undefined : flags.seeds.map(Number);
    const { runSklSdTrainExperiment } = await import("../../experiments/skl-sd-train/experiment.ts");
    const { interruptedLine } = await import("../../experiments/interrupt.ts");
    const run = await runSklSdTrainExperiment(
      defined({
        outDir: flags.out,
        scale: flags.scale,
        seeds,
        maps: flags.maps,
        heldoutMaps: flags.heldoutMaps,
        iterations: flags.iterations,
        evalEpisodes: flags.evalEpisodes,
        epochs: flags.epochs,
        lambda1: flags.lambda1,
        lambda2: flags.lambda2,
        temperature: flags.temperature,
        slip: flags.slip,
      }),
      {
        signal: ctx.signals().signal,
        onRow: (r) =>
          o.warn(
            `seed ${r.seed} ${r.mix}: train ${r.train.pass1.toFixed(3)}, held-out ${r.heldout.pass1.toFixed(3)}`,
          ),
      },
    );
    o.result(run.results);
    o.line(run.table);
    o.line(`results: ${run.paths.results}, chart: ${run.paths.svg}`);
    if (run.results.status === "interrupted")
      o.warn(
        interruptedLine(
          "experiment skl-sd",
          `${run.results.rows.length} rows (${run.results.data.length} seeds' data)`,
          run.paths.results,
        ),
      );
  });
}
