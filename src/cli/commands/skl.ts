import type { Command } from "commander";
import type { Runtime } from "../../core/index.ts";
import { type ExperimentRunSpec, withExperimentRun } from "../../experiments/index.ts";
import type { EpisodeRecorder } from "../../knowledge/index.ts";
import { llmConfigFromEnv } from "../../llm/index.ts";
import { type CliContext, withRunner } from "../context.ts";
import { intOption } from "../options.ts";
import { registerSklChess } from "./skl-chess.ts";
import { registerSklFrozenLake } from "./skl-frozenlake.ts";
import { registerSklSd } from "./skl-sd.ts";

/** `rehearsal skl frozenlake | chess | sd`: the stateful-knowledge experiments, each one run of the store. */
export function registerSkl(program: Command, ctx: CliContext): void {
  const skl = program.command("skl").description("stateful knowledge (SKL) experiments");
  registerSklFrozenLake(skl, ctx);
  registerSklChess(skl, ctx);
  registerSklSd(skl, ctx);
}

/** Each SKL subcommand's description and default output directory. */
const SKL_COMMANDS = {
  frozenlake: {
    description:
      "no reflection vs trajectory reflection vs stateful (root-only, bootstrapping) on train and held-out maps",
    outDir: "rehearsal-skl",
  },
  chess: {
    description:
      "SKL-RL on chess puzzles: simulate N branches of H moves from each state, write z_hat, act; per expert rate",
    outDir: "rehearsal-skl-chess",
  },
  sd: {
    description:
      "SKL-SD on FrozenLake: D_base, D_distill and D_reflect as TRL JSONL, with λ1 and λ2 in a manifest",
    outDir: "rehearsal-skl-sd",
  },
} as const;

/** An SKL subcommand with the options every one has: `--seed`, `--out-dir`, `--store`. */
export function sklCommand(skl: Command, name: keyof typeof SKL_COMMANDS): Command {
  const spec = SKL_COMMANDS[name];
  return skl
    .command(name)
    .description(spec.description)
    .option("--seed <seed>", "seed", "0")
    .option("--out-dir <dir>", "where the experiment's files go", spec.outDir)
    .option(
      "--store <dir>",
      "run store: the experiment is recorded there as a run of kind skl",
      ".rehearsal",
    );
}

/** Adds `--writer` (statistical | llm). */
export function writerOption(command: Command): Command {
  return command.option(
    "--writer <name>",
    "knowledge writer: statistical | llm (REHEARSAL_LLM_* variables)",
    "statistical",
  );
}

/** The writer flags every SKL command shares; `llm` reads the REHEARSAL_LLM_* variables. */
export function writerOptions(writer: string): {
  writer: "statistical" | "llm";
  llm?: Record<string, unknown>;
} {
  const name = writer as "statistical";
  return writer === "llm" ? { writer: name, llm: llmConfigFromEnv(process.env) } : { writer: name };
}

/** `--seed` as the integer seed and `--out-dir` of the experiments that take them so (chess, sd). */
export function seedAndOutDir(flags: { seed: string; outDir: string }): { seed: number; outDir: string } {
  return { seed: intOption(flags.seed), outDir: flags.outDir };
}

/**
 * Runs `experiment(options, deps)` as a run of kind `skl` in the store `flags.store` (config: the
 * options without the LLM config, which may carry an API key), with the CLI runtime (real clock for
 * retry waits, the CLI logger) passed to the experiment; the store is closed afterwards.
 */
export function runSklExperiment<O extends Record<string, unknown>, T>(
  ctx: CliContext,
  flags: { store: string; seed: string },
  name: string,
  options: O,
  experiment: (options: O, deps: { recorder: EpisodeRecorder; runtime: Runtime }) => Promise<T>,
  summary: (result: T) => Record<string, unknown>,
): Promise<{ runId: string; result: T }> {
  const spec: ExperimentRunSpec = {
    kind: "skl",
    seed: flags.seed,
    config: { experiment: name, ...options, llm: undefined },
  };
  return withRunner(ctx, flags.store, flags.seed, ({ runtime, store }) =>
    withExperimentRun(
      { store, runtime },
      spec,
      (recorder) => experiment(options, { recorder, runtime }),
      summary,
    ),
  );
}
