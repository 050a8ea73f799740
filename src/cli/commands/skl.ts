import type { Command } from "commander";
import type { Runtime } from "../../core/index.ts";
import type { ExperimentRunResult, ExperimentRunSpec } from "../../experiments/index.ts";
import type { EpisodeRecorder } from "../../knowledge/index.ts";
import { resumeHint } from "../../runner/run-status.ts";
import { type CliContext, withRunner } from "../context.ts";
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

/**
 * Runs `experiment(options, deps)` as a run of kind `skl` in the store `flags.store` (config: the
 * options without the LLM config, which may carry an API key), with the CLI runtime (real clock for
 * retry waits, the CLI logger) passed to the experiment; the store is closed afterwards. SIGINT/SIGTERM
 * stop the experiment between units of work (the episode in flight is recorded `aborted`): what
 * completed is written, the run is marked `interrupted`, a warning says that SKL runs cannot be resumed,
 * and `main` exits with 130/143.
 */
export async function runSklExperiment<O extends Record<string, unknown>, T>(
  ctx: CliContext,
  flags: { store: string; seed: string },
  name: string,
  options: O,
  experiment: (options: O, deps: { recorder: EpisodeRecorder; runtime: Runtime }) => Promise<T>,
  summary: (result: T) => Record<string, unknown>,
): Promise<ExperimentRunResult<T>> {
  const spec: ExperimentRunSpec = {
    kind: "skl",
    seed: flags.seed,
    config: { experiment: name, ...options, llm: undefined },
  };
  const { withExperimentRun } = await import("../../experiments/index.ts");
  const run = await withRunner(ctx, flags.store, flags.seed, ({ runtime, store, signals }) =>
    withExperimentRun(
      { store, runtime, ...(signals ? { signals } : {}) },
      spec,
      (recorder) => experiment(options, { recorder, runtime }),
      summary,
    ),
  );
  if (run.status === "interrupted") {
    const hint = resumeHint({ kind: "skl", id: run.runId }, flags.store);
    ctx.out().warn(`run ${run.runId} interrupted; skl runs cannot be resumed (no --resume): ${hint}`);
  }
  return run;
}
