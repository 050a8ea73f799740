import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { CurationManifest, TaskRate } from "../../rl/index.ts";
import { type CliContext, warnIfInterrupted, withRunner } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";
import { addConfigOptions, type ConfigFlags, configFromFlags } from "../run-options.ts";

interface CurateFlags extends ConfigFlags {
  episodes: number;
  max?: number;
  min?: number;
  sample?: number;
  maxSteps?: number;
  temperature?: number;
  out?: string;
}

/** The kept and dropped tasks with their rates, then where the manifest went. */
function printManifest(o: Output, m: CurationManifest, out: string): void {
  const rate = (r: number | null) => (r === null ? "-" : formatPercent(r));
  const sampled = new Set(m.sample.tasks);
  o.table(
    ["task", "episodes", "success", "decision"],
    [
      ...m.kept.map((k) => [
        k.taskId,
        k.episodes,
        rate(k.rate),
        sampled.has(k.taskId) ? "kept" : "kept, not sampled",
      ]),
      ...m.dropped.map((d) => [
        d.taskId,
        d.episodes,
        rate(d.rate),
        `dropped (${d.reason.replace("_", " ")})`,
      ]),
    ],
  );
  o.line(
    `${m.kept.length} kept in [${m.thresholds.min}, ${m.thresholds.max}], ${m.dropped.length} dropped, ${m.sample.tasks.length} sampled (seed ${m.seed}) — manifest ${out} (rehearsal rl rollouts --curation ${out})`,
  );
}

export function registerRlCurate(rl: Command, ctx: CliContext): void {
  addConfigOptions(
    rl
      .command("curate")
      .description(
        "measure each task's zero-shot success over K episodes; keep those within [--min, --max]; write a manifest",
      ),
  )
    .option("--episodes <k>", "K, episodes per task", positiveIntOption, 10)
    .option("--max <rate>", "drop a task whose success rate is above this (default 0.8)", floatOption)
    .option("--min <rate>", "drop a task whose success rate is below this (default 0.05)", floatOption)
    .option("--sample <n>", "keep a seeded sample of n of the kept tasks (default: all)", positiveIntOption)
    .option("--max-steps <n>", "step limit per episode (default: the task's)", positiveIntOption)
    .option("--temperature <t>", "policy sampling temperature", floatOption)
    .option("--out <file>", "the manifest (JSON) to write")
    .action(async (flags: CurateFlags) => {
      const o = ctx.out();
      if (!flags.out)
        throw new UserError("cli.invalid_option", "rl curate needs --out FILE.json (the manifest)");
      const out = flags.out;
      const rl = await import("../../rl/index.ts");
      const given = { max: flags.max, min: flags.min };
      const thresholds = rl.parseCurationThresholds(
        Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
      );
      const config = await configFromFlags(
        flags,
        { episodes: flags.episodes, temperature: flags.temperature, maxSteps: flags.maxSteps },
        { policyByEnv: true },
      );
      const { executeRun } = await import("../../runner/execute-run.ts");
      const measured = await withRunner(ctx, config.store, config.seed, async (deps) => {
        const run = await executeRun(deps, { config, storeDir: config.store });
        const perTask = new Map(run.summary.perTask.map((t) => [t.taskId, t]));
        const rates: TaskRate[] = deps.store.listTasks(run.runId).map((t) => ({
          taskId: t.id,
          episodes: perTask.get(t.id)?.episodes ?? 0,
          successes: perTask.get(t.id)?.successes ?? 0,
        }));
        return { run, rates };
      });
      const { run, rates } = measured;
      if (run.status === "interrupted") {
        warnIfInterrupted(o, { status: run.status, kind: "run", id: run.runId }, config.store);
        o.warn(`no manifest written: the rates of run ${run.runId} are incomplete`);
        return;
      }
      const manifest = rl.curateTasks(rates, {
        env: config.env,
        suite: config.suite,
        policy: config.policy,
        episodes: config.episodes,
        seed: config.seed,
        run: run.runId,
        thresholds,
        ...(flags.sample === undefined ? {} : { sample: flags.sample }),
      });
      const { writeFileAtomic } = await import("../../export/output-file.ts");
      const path = writeFileAtomic(out, "rl curate", `${JSON.stringify(manifest, null, 2)}\n`);
      o.result({ out: path, ...manifest });
      printManifest(o, manifest, out);
    });
}
