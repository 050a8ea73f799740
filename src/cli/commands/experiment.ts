import type { Command } from "commander";
import type { CliContext } from "../context.ts";

/**
 * `rehearsal experiment ...`: the training loops closed end to end on a CPU (data → training →
 * evaluation in the real environment); each prints a table and writes JSON and SVG.
 */
export function registerExperiment(program: Command, ctx: CliContext): void {
  const experiment = program
    .command("experiment")
    .description("closed-loop experiments: data → training → evaluation in the real environment");
  void experiment;
  void ctx;
}
