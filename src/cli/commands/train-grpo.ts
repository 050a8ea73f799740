import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import { type CliContext, withRunner } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { formatPercent } from "../output.ts";
import { createProgress } from "../progress.ts";
import { addConfigOptions, configFromFlags } from "../run-options.ts";
import { type GrpoFlags, grpoRunOptions, printGrpoResult, withoutKind } from "./train-grpo-setup.ts";

export function registerTrainGrpo(train: Command, ctx: CliContext): void {
  addConfigOptions(
    train
      .command("grpo")
      .description(
        "GRPO: rollout groups, group advantages and clipped policy-gradient updates, per iteration",
      ),
    ["policy"],
  )
    .requiredOption(
      "--out <ckpt>",
      "the checkpoint to write after every iteration (curve and iters/ beside it)",
    )
    .option("--policy <kind>", "tabular | linear (default tabular)")
    .option("--init <ckpt>", "start from (and keep the KL to) this checkpoint's policy")
    .option("--resume", "continue the training of the checkpoint at --out from its last iteration")
    .option("--group <n>", "G, trajectories per task and iteration", positiveIntOption, 8)
    .option("--iterations <n>", "iterations (default 20)", positiveIntOption)
    .option("--t-max <n>", "step limit per trajectory", positiveIntOption, 15)
    .option("--update-steps <n>", "gradient steps per iteration (default 4)", positiveIntOption)
    .option("--lr <rate>", "learning rate (default 0.5)", floatOption)
    .option("--clip <eps>", "PPO ratio clip ε (default 0.2)", floatOption)
    .option("--kl <beta>", "weight of KL to the initial policy (default 0)", floatOption)
    .option("--temperature <t>", "rollout sampling temperature, > 0 (default 1)", floatOption)
    .option("--alpha <w>", "weight of R_success (default 1.0)", floatOption)
    .option(
      "--beta <w>",
      "weight of the length reward R_L (default 0.5; 0 rewards success alone)",
      floatOption,
    )
    .option("--gamma <w>", "weight of the WM-call reward R_WM (default 0.1)", floatOption)
    .action(async (flags: GrpoFlags) => {
      const o = ctx.out();
      const { iterationCheckpointPath, trainGrpo, writeLearningCurve } = await import("../../train/index.ts");
      const { writeCheckpoint } = await import("../../policies/trainable/index.ts");
      const { options, resume, init } = await grpoRunOptions(flags);
      const config = await configFromFlags(withoutKind(flags), {
        seed: resume?.training?.seed ?? flags.seed,
        episodes: options.rollouts.group,
        maxSteps: options.rollouts.tMax,
        temperature: options.temperature,
      });
      const family = config.worldbook?.family ?? config.env;
      if (resume?.family !== undefined && resume.family !== family)
        throw new UserError(
          "train.resume",
          `--resume: ${flags.out} was trained on ${resume.family}, not ${family}`,
        );
      const done0 = resume?.training?.iterations ?? 0;
      const progress = createProgress(options.iterations, {
        json: o.json,
        label: "iterations",
        format: "grpo [{bar}] {value}/{total} | success {successRate} | reward {reward}",
      });
      progress.update(done0, { successRate: "-", reward: "-" });
      const { withRunSession } = await import("../../runner/run-session.ts");
      const checkpoint = await withRunner(ctx, config.store, config.seed, (deps) =>
        withRunSession(deps, { config }, (session) =>
          trainGrpo(
            {
              env: session.env,
              tasks: session.tasks,
              runtime: session.runtime,
              signal: session.signal,
              onIteration: (ckpt, point) => {
                writeCheckpoint(flags.out, ckpt);
                writeCheckpoint(iterationCheckpointPath(flags.out, point.iteration + 1), ckpt);
                writeLearningCurve(
                  flags.out,
                  `train grpo (${options.kind}, ${family})`,
                  ckpt.training?.curve ?? [],
                );
                progress.update(point.iteration + 1, {
                  successRate: formatPercent(point.successRate ?? 0),
                  reward: (point.meanReward ?? 0).toFixed(3),
                });
              },
            },
            options,
            { family, seed: config.seed, ...(init ? { init } : {}), ...(resume ? { resume } : {}) },
          ),
        ),
      ).finally(() => progress.stop());
      const curve = checkpoint.training?.curve ?? [];
      if (curve.length === 0 || checkpoint.training?.iterations === done0)
        writeCheckpoint(flags.out, checkpoint);
      printGrpoResult(o, flags.out, options, family, checkpoint);
    });
}
