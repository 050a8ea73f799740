import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { registerExperimentEnvsLoop } from "./experiment-envs-loop.ts";
import { registerExperimentSklSd } from "./experiment-skl-sd.ts";
import { registerExperimentWmLoop } from "./experiment-wm-loop.ts";

/**
 * `rehearsal experiment ...`: the training loops closed end to end on a CPU (data → training →
 * evaluation in the real environment); each prints a table and writes JSON and SVG.
 */
export function registerExperiment(program: Command, ctx: CliContext): void {
  const experiment = program
    .command("experiment")
    .description("closed-loop experiments: data → training → evaluation in the real environment");
  registerExperimentEnvsLoop(experiment, ctx);
  registerExperimentWmLoop(experiment, ctx);
  registerExperimentSklSd(experiment, ctx);
}
