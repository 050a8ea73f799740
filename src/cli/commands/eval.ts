import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { type CliContext, warnIfInterrupted, withRunner } from "../context.ts";
import { noiseSetOption, requireNoise } from "../noise-options.ts";
import { floatOption, intOption, listOption, positiveIntOption } from "../options.ts";
import { createProgress } from "../progress.ts";
import { addConfigOptions, type ConfigFlags, configFromFlags } from "../run-options.ts";
import { printNoisyReport } from "./eval-noise.ts";
import { printEvalReport } from "./eval-summary.ts";

interface EvalFlags extends ConfigFlags {
  rollouts: number;
  k: number[];
  temperature: number;
  maxSteps?: number;
  entropyStates: number;
  entropySamples: number;
  noise?: string;
  schedule?: string;
  policies?: string[];
}

function kList(value: string): number[] {
  const ks = value.split(",").map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1))
    throw new InvalidArgumentError(`expected comma-separated whole numbers ≥ 1, got '${value}'`);
  return ks;
}

export function registerEval(program: Command, ctx: CliContext): void {
  addConfigOptions(
    program
      .command("eval")
      .description("evaluate a policy: n rollouts per task, pass@k (unbiased), pass^k, action entropy"),
  )
    .option("--rollouts <n>", "rollouts per task", positiveIntOption, 8)
    .option("--k <list>", "k values for pass@k and pass^k", kList, [1, 8])
    .option("--temperature <t>", "sampling temperature", floatOption, 1)
    .option("--max-steps <n>", "horizon (default: the task's)", intOption)
    .option("--entropy-states <n>", "states sampled for action entropy (0 = off)", intOption, 20)
    .option("--entropy-samples <k>", "samples per state for action entropy", intOption, 8)
    .option(
      "--noise <set>",
      "also evaluate under noise: heldout = one held-out perturbation per task, next to the clean run",
    )
    .option("--schedule <file>", "precomputed noise schedule (rehearsal noise schedule); default: computed")
    .option("--policies <names>", "with --noise: policies to compare (cross-evaluation table)", listOption)
    .action(async (flags: EvalFlags) => {
      noiseSetOption(flags.noise, ["heldout"]);
      requireNoise(flags.noise, "heldout", { "--schedule": flags.schedule, "--policies": flags.policies });
      const o = ctx.out();
      const config = await configFromFlags(
        flags,
        { episodes: flags.rollouts, temperature: flags.temperature, maxSteps: flags.maxSteps },
        { policyByEnv: true, flagNames: { episodes: "--rollouts" } },
      );
      const ks = [...new Set(flags.k)].sort((a, b) => a - b);
      let progress: ReturnType<typeof createProgress> | undefined;
      const onEpisode = (done: number, total: number) => {
        progress ??= createProgress(total, { json: o.json, label: "rollouts" });
        progress.update(done);
      };
      await withRunner(ctx, config.store, config.seed, async (deps) => {
        if (flags.noise === "heldout") {
          const { executeNoisyEval } = await import("../../runner/execute-noisy-eval.ts");
          const noisy = await executeNoisyEval(deps, {
            config,
            policies: flags.policies ?? [config.policy],
            ks,
            ...(flags.schedule ? { scheduleFile: flags.schedule } : {}),
            onEpisode,
          });
          progress?.stop();
          printNoisyReport(o, noisy, ks, config.episodes);
          const id = noisy.runIds.at(-1) ?? "";
          warnIfInterrupted(o, { status: noisy.status, kind: "eval", id }, config.store);
          return;
        }
        const { executeEval } = await import("../../runner/execute-eval.ts");
        const run = await executeEval(deps, {
          config,
          ks,
          entropy: { states: flags.entropyStates, samples: flags.entropySamples },
          onEpisode,
        });
        progress?.stop();
        printEvalReport(o, run, ks, config);
        warnIfInterrupted(o, { status: run.status, kind: "eval", id: run.runId }, config.store);
      }).finally(() => progress?.stop());
    });
}
