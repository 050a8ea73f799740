import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { floatOption, intOption } from "../options.ts";
import { seedAndOutDir, sklCommand, writerOption, writerOptions } from "../skl-options.ts";
import { runSklExperiment } from "./skl.ts";

interface Flags {
  maps: number;
  iterations: number;
  slip: string;
  writer: string;
  sampleFraction: number;
  lambda1: number;
  lambda2: number;
  seed: string;
  outDir: string;
  store: string;
}

/** `rehearsal skl sd`: SKL-SD datasets (D_base, D_distill, D_reflect) on FrozenLake, through export/. */
export function registerSklSd(skl: Command, ctx: CliContext): void {
  writerOption(sklCommand(skl, "sd"))
    .option("--maps <n>", "training maps", intOption, 50)
    .option("--iterations <n>", "iterations", intOption, 1)
    .option("--slip <kind>", "symmetric | asymmetric | none", "symmetric")
    .option(
      "--sample-fraction <f>",
      "bootstrap on this uniform fraction of the failed episodes' states (paper: 0.2)",
      floatOption,
      1,
    )
    .option("--lambda1 <x>", "weight of PG(D_distill)", floatOption, 1)
    .option("--lambda2 <x>", "weight of SFT(D_reflect)", floatOption, 1)
    .action(async (flags: Flags) => {
      const { runSklSdPipeline } = await import("../../experiments/index.ts");
      const o = ctx.out();
      const options = {
        maps: flags.maps,
        iterations: flags.iterations,
        slip: flags.slip as "symmetric",
        ...(await writerOptions(flags.writer)),
        sampleFraction: flags.sampleFraction,
        lambda1: flags.lambda1,
        lambda2: flags.lambda2,
        ...seedAndOutDir(flags),
      };
      const { runId, result, status } = await runSklExperiment(
        ctx,
        flags,
        "sd",
        options,
        runSklSdPipeline,
        (r) => ({
          files: r.manifest.files,
        }),
      );
      o.result({ runId, status, manifest: result.manifest, paths: result.paths });
      o.line(
        `SKL-SD on ${flags.maps} FrozenLake maps (${flags.slip} slip, ${flags.writer} writer), run ${runId}: L = PG(D_base) + ${flags.lambda1}·PG(D_distill) + ${flags.lambda2}·SFT(D_reflect)`,
      );
      o.table(
        ["dataset", "records", "file"],
        [
          ["D_base", result.records.base.length, result.paths.base],
          ["D_distill", result.records.distill.length, result.paths.distill],
          ["D_reflect", result.records.reflect.length, result.paths.reflect],
        ],
      );
    });
}
