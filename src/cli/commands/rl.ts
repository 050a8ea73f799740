import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { registerRlCalibrateJudge } from "./rl-calibrate-judge.ts";
import { registerRlCurate } from "./rl-curate.ts";
import { registerRlExport } from "./rl-export.ts";
import { registerRlRollouts } from "./rl-rollouts.ts";

/** `rehearsal rl ...`: WM-R1 rollout groups, rewards, advantages and trainer exports. */
export function registerRl(program: Command, ctx: CliContext): void {
  const rl = program
    .command("rl")
    .description("RL data (WM-R1): rollout groups, composite rewards, GRPO advantages, exports");
  registerRlCurate(rl, ctx);
  registerRlRollouts(rl, ctx);
  registerRlExport(rl, ctx);
  registerRlCalibrateJudge(rl, ctx);
}
