import { type Command, Option } from "commander";
import { type ErrorCategory, RehearsalError, UserError } from "../../core/errors.ts";
import type { CliContext } from "../context.ts";
import { listOption } from "../options.ts";

interface ExperimentFlags {
  families: string[] | "all";
  out: string;
  scale: "full" | "small";
  seed: string;
}

/**
 * `rehearsal worldbook experiment --families frozenlake,chess,web [--out DIR]`: records, splits, builds
 * and evaluates every family (FrozenLake in both slip settings) and prints one table.
 */
export function registerWorldbookExperiment(worldbook: Command, ctx: CliContext): void {
  worldbook
    .command("experiment")
    .description(
      "per-family world-model experiment: record real episodes, build a worldbook per family, evaluate the five systems (TV, multi-turn, ablations, learning curve), slip recovery and W2R; writes report.md and report.json",
    )
    .option("--families <list>", "frozenlake,chess,web (or all)", listOption, "all")
    .option(
      "--out <dir>",
      "where worldbooks, held-out traces, report.md, report.json and SVGs go",
      "worldmodel-experiment",
    )
    .addOption(
      new Option("--scale <scale>", "full (the reported run) or small (a quick check)")
        .choices(["full", "small"])
        .default("full"),
    )
    .option("--seed <seed>", "root seed of recording, splits and learning curves", "0")
    .action(async (flags: ExperimentFlags) => {
      const o = ctx.out();
      const { ExperimentFamilySchema } = await import("../../experiments/worldmodel/families.ts");
      const names = flags.families === "all" ? ExperimentFamilySchema.options : flags.families;
      const families = names.map((f) => {
        const parsed = ExperimentFamilySchema.safeParse(f);
        if (parsed.success) return parsed.data;
        throw new UserError(
          "experiment.bad_family",
          `worldbook experiment: unknown family '${f}'. Fix: --families with any of ${ExperimentFamilySchema.options.join(", ")}`,
        );
      });
      const { runWorldModelExperiment } = await import("../../experiments/worldmodel/experiment.ts");
      const { formatFamiliesTable } = await import("../../worldmodel/eval/format.ts");
      const { formatSlipTable, formatW2rTable } = await import("../../experiments/worldmodel/report.ts");
      const report = await runWorldModelExperiment({
        families,
        out: flags.out,
        scale: flags.scale,
        seed: flags.seed,
        onProgress: (message) => o.warn(message),
        signal: ctx.signals().signal,
      });
      // With --json a failure is the one JSON document (the error); the report is in --out.
      if (report.failures.length === 0) o.result(report);
      const s = report.settings;
      o.line(
        formatFamiliesTable(
          s.map((r) => ({ family: r.label, fidelity: r.eval.fidelity })),
          { format: "plain" },
        ),
      );
      if (s.some((r) => r.slip))
        o.line(`\nslip probabilities (recovered vs truth):\n${formatSlipTable(s, "plain")}`);
      o.line(`\nworld-to-real:\n${formatW2rTable(s, "plain")}`);
      o.line(`\nreport: ${flags.out}/report.md, ${flags.out}/report.json (${report.seconds.toFixed(1)} s)`);
      if (report.status === "interrupted") {
        const { interruptedLine } = await import("../../experiments/interrupt.ts");
        const kept = `${s.length} completed settings (${s.map((r) => r.label).join(", ") || "none"})`;
        o.warn(interruptedLine("worldbook experiment", kept, `${flags.out}/report.json`));
      }
      const [first, ...more] = report.failures;
      if (first)
        throw new RehearsalError(
          "experiment.setting_failed",
          first.error.category as ErrorCategory,
          `worldbook experiment: ${[first, ...more].map((f) => `${f.label} failed [${f.error.code}]: ${f.error.message}`).join("; ")}. The other settings are in ${flags.out}/report.md. Fix: see the error of each failed setting`,
        );
    });
}
