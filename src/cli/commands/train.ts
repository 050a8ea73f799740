import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { registerTrainGrpo } from "./train-grpo.ts";
import { registerTrainSft } from "./train-sft.ts";

/** `rehearsal train ...`: trainable policies (tabular, linear) by weighted SFT or GRPO, on the CPU. */
export function registerTrain(program: Command, ctx: CliContext): void {
  const train = program
    .command("train")
    .description("train a tabular or linear policy (weighted SFT on an export, or GRPO on an environment)");
  registerTrainSft(train, ctx);
  registerTrainGrpo(train, ctx);
}
