import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { registerWorldbookBuild } from "./worldbook-build.ts";
import { registerWorldbookDiff } from "./worldbook-diff.ts";
import { registerWorldbookEval } from "./worldbook-eval.ts";
import { registerWorldbookExperiment } from "./worldbook-experiment.ts";
import { registerWorldbookShow } from "./worldbook-show.ts";

/** `rehearsal worldbook build | show | diff | eval`: world models built from traces (docs/worldbook.md). */
export function registerWorldbook(program: Command, ctx: CliContext): void {
  const worldbook = program
    .command("worldbook")
    .description("world models from traces: build, inspect, compare, evaluate");
  registerWorldbookBuild(worldbook, ctx);
  registerWorldbookShow(worldbook, ctx);
  registerWorldbookDiff(worldbook, ctx);
  registerWorldbookEval(worldbook, ctx);
  registerWorldbookExperiment(worldbook, ctx);
}
