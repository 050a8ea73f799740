import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { RolloutGroupOptions } from "../../rl/index.ts";
import { type CliContext, withRunner } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { addConfigOptions, type ConfigFlags, configFromFlags } from "../run-options.ts";
import { addJudgeOptions, type JudgeFlags, printJudgeLine, successJudge } from "./rl-judge-options.ts";
import {
  addRolloutInputOptions,
  checkCurationEnv,
  type RolloutInputFlags,
  rolloutExtras,
} from "./rl-rollout-inputs.ts";
import { printGroups } from "./rl-summary.ts";
import { wmSpec } from "./rl-wm.ts";
import { printInfraFailures } from "./run-summary.ts";

interface RolloutFlags extends ConfigFlags, RolloutInputFlags, JudgeFlags {
  success?: string;
  group: number;
  minGroup: number;
  tMax: number;
  temperature?: number;
  alpha?: number;
  beta?: number;
  gamma?: number;
  scaling?: string;
  wm?: string;
  wmCandidates?: number;
  wmCap?: number;
}

/** The validated rollout-group options of the flags (a bad value is a user error naming it). */
async function groupOptions(flags: RolloutFlags): Promise<RolloutGroupOptions> {
  const { RolloutGroupOptionsSchema } = await import("../../rl/index.ts");
  const weights = { alpha: flags.alpha, beta: flags.beta, gamma: flags.gamma };
  const r = RolloutGroupOptionsSchema.safeParse({
    group: flags.group,
    minGroup: flags.minGroup,
    tMax: flags.tMax,
    rewards: Object.fromEntries(Object.entries(weights).filter(([, v]) => v !== undefined)),
    advantages: flags.scaling === undefined ? {} : { scaling: flags.scaling },
  });
  if (r.success) return r.data;
  const flagOf = (path: ReadonlyArray<PropertyKey>) =>
    `--${String(path.at(-1)).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  throw new UserError(
    "rl.options",
    `invalid rl rollouts options: ${r.error.issues.map((i) => `${flagOf(i.path)}: ${i.message}`).join("; ")}`,
  );
}

/** The weights of R = α·R_success + β·R_L + γ·R_WM, one flag each (a weight of 0 logs its part only). */
const REWARD_WEIGHT_FLAGS = [
  ["--alpha <w>", "weight of R_success (default 1.0)"],
  ["--beta <w>", "weight of the length reward R_L (default 0.5)"],
  ["--gamma <w>", "weight of the WM-call reward R_WM (default 0.1; 0 logs it only)"],
] as const;

export function registerRlRollouts(rl: Command, ctx: CliContext): void {
  const command = addConfigOptions(
    rl
      .command("rollouts")
      .description(
        "play G trajectories per task from one initial state; score composite rewards and GRPO advantages",
      ),
  )
    .option("--group <n>", "G, trajectories per task", positiveIntOption, 8)
    .option("--min-group <n>", "drop a group left with fewer scorable members", positiveIntOption, 2)
    .option("--t-max <n>", "step limit per trajectory (T_max, also L_max)", positiveIntOption, 15)
    .option("--temperature <t>", "policy sampling temperature", floatOption);
  for (const [flag, what] of REWARD_WEIGHT_FLAGS) command.option(flag, what, floatOption);
  addJudgeOptions(command, { success: true });
  addRolloutInputOptions(command)
    .option("--scaling <s>", "advantage scaling: group | batch | none (default group)")
    .option(
      "--wm <model>",
      "a world model, perfect (snapshots) | worldbook:DIR: the llm policy calls it in its reasoning (<call_wm>), any other is wrapped in wm-lookahead",
    )
    .option("--wm-candidates <n>", "wm-lookahead: candidates sampled per step (default 4)", positiveIntOption)
    .option(
      "--wm-cap <n>",
      "world-model calls per step at most, <call_wm> or wm-lookahead (default 5)",
      positiveIntOption,
    )
    .action(async (flags: RolloutFlags) => {
      const o = ctx.out();
      const options = await groupOptions(flags);
      const wm = await wmSpec(flags);
      const extras = { ...(await rolloutExtras(flags)), ...(await successJudge(flags)) };
      const config = await configFromFlags(
        flags,
        { episodes: options.group, maxSteps: options.tMax, temperature: flags.temperature },
        { policyByEnv: true },
      );
      checkCurationEnv(extras, config.env);
      const { executeRlRollouts } = await import("../../runner/execute-rl-rollouts.ts");
      const run = await withRunner(ctx, config.store, config.seed, (deps) =>
        executeRlRollouts(deps, config, options, wm, extras),
      );
      o.result({
        runId: run.runId,
        status: run.status,
        env: config.env,
        policy: run.summary.policy,
        summary: run.summary,
      });
      o.line(
        `rl run ${run.runId} (${run.status}) — env ${config.env}, policy ${run.summary.policy}, G ${options.group}`,
      );
      printGroups(o, run.runId, run.summary.rl, run.summary.metrics);
      printJudgeLine(o, run.summary.judge);
      printInfraFailures(o, run.runId, run.summary.infraFailures, `${run.summary.episodes} rollouts`);
      if (run.status === "interrupted")
        o.warn(
          `run ${run.runId} interrupted; what completed is scored in 'rehearsal runs show ${run.runId}'`,
        );
    });
}
