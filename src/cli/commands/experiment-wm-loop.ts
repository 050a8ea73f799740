import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { CliContext } from "../context.ts";
import { listOption, positiveIntOption } from "../options.ts";

interface WmLoopFlags {
  families: string[] | "all";
  out: string;
  scale: string;
  seed: string;
  budget?: string;
  iterations?: number;
  evalEpisodes?: number;
  wmGate: boolean;
}

/**
 * `rehearsal experiment wm-loop`: GRPO in the worldbook world model vs GRPO in the real environment at
 * matched wall-clock, both evaluated in the real environment; prints a table, writes results.json and SVGs.
 */
export function registerExperimentWmLoop(experiment: Command, ctx: CliContext): void {
  experiment
    .command("wm-loop")
    .description(
      "GRPO in a worldbook world model vs in the real environment at matched training seconds, both scored in the real environment",
    )
    .option(
      "--families <list>",
      "frozenlake,terminal (default); add web for the short web tasks (or all)",
      listOption,
      ["frozenlake", "terminal"],
    )
    .option("--out <dir>", "where worldbooks, results.json and the SVG curves go", "experiment-wm-loop")
    .option("--scale <scale>", "default (the reported run) or small (seconds, for tests)", "default")
    .option("--seed <seed>", "root seed of recording, training and evaluation", "0")
    .option("--budget <seconds>", "training seconds per arm and family (default per family)")
    .option("--iterations <n>", "fixed GRPO iterations per arm instead of a time budget", positiveIntOption)
    .option("--eval-episodes <n>", "real-env evaluation episodes per task and checkpoint", positiveIntOption)
    .option(
      "--no-wm-gate",
      "train the plain trainable policy (default: the WM-consulting one, asking the worldbook)",
    )
    .action(async (flags: WmLoopFlags) => {
      const o = ctx.out();
      const { WmLoopFamilySchema, WmLoopOptionsSchema } = await import(
        "../../experiments/wm-loop/options.ts"
      );
      const parsed = WmLoopOptionsSchema.safeParse({
        families: flags.families === "all" ? WmLoopFamilySchema.options : flags.families,
        scale: flags.scale,
        seed: flags.seed,
        ...(flags.budget === undefined ? {} : { budgetSeconds: Number(flags.budget) }),
        ...(flags.iterations === undefined ? {} : { iterations: flags.iterations }),
        ...(flags.evalEpisodes === undefined ? {} : { evalEpisodes: flags.evalEpisodes }),
        wmGate: flags.wmGate,
      });
      if (!parsed.success)
        throw new UserError(
          "experiment.bad_options",
          `experiment wm-loop: invalid options (${parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ")}). Fix: --families frozenlake,terminal,web, --scale default|small, --budget a positive number of seconds`,
        );
      const { runWmLoop } = await import("../../experiments/wm-loop/experiment.ts");
      const { wmLoopTable } = await import("../../experiments/wm-loop/report.ts");
      const { performance } = await import("node:perf_hooks");
      const results = await runWmLoop(parsed.data, {
        out: flags.out,
        now: () => performance.now(),
        signal: ctx.signals().signal,
        onProgress: (m) => o.warn(m),
      });
      o.result(results);
      const { head, rows } = wmLoopTable(results);
      o.table(head, rows);
      o.line(`WM calls: ${results.wmCalls}`);
      o.line(
        `results: ${flags.out}/results.json, curves: ${flags.out}/curve-*.svg, wm-calls-*.svg (${results.seconds.toFixed(1)} s)`,
      );
      if (results.status === "interrupted") {
        const { interruptedLine } = await import("../../experiments/interrupt.ts");
        const kept = `${results.families.length} of ${parsed.data.families.length} families (${results.families.map((f) => f.name).join(", ") || "none"})`;
        o.warn(interruptedLine("experiment wm-loop", kept, `${flags.out}/results.json`));
      }
    });
}
