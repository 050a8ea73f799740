import { join } from "node:path";
import { type Environment, type Runtime, type Task, UserError } from "../../core/index.ts";
import { evaluateRobustness, type RobustnessReport } from "../../eval/index.ts";
import {
  type NoiseScheduleFile,
  type PlannedNoiseEvent,
  parseScheduleOptions,
  readScheduleFile,
  writeScheduleFile,
} from "../../noise/index.ts";
import type { RunStore } from "../../store/contract.ts";
import { codeVersion } from "../code-version.ts";
import { type RunConfig, RunConfigSchema } from "../config.ts";
import { evaluationScheduleFor } from "../noise-schedule.ts";
import { formatPercent, type Output } from "../output.ts";
import { createPolicyFromConfig } from "../policies.ts";
import { createProgress } from "../progress.ts";
import { markRunFailed } from "../run-status.ts";

export interface NoisyEvalArgs {
  config: RunConfig;
  env: Environment;
  tasks: ReadonlyArray<Task>;
  store: RunStore;
  runtime: Runtime;
  /** Policy names to compare (each evaluated clean and noisy). */
  policies: ReadonlyArray<string>;
  ks: ReadonlyArray<number>;
  /** A precomputed schedule file; without one the schedule is computed and written beside the store. */
  scheduleFile?: string;
  signal: AbortSignal;
  /** Run id prefix; each policy × condition is its own run. */
  runIdPrefix: string;
}

/** Loads the schedule file (every task must be in it) or computes one and writes it for reuse. */
async function loadSchedule(
  args: NoisyEvalArgs,
): Promise<{ file: NoiseScheduleFile; path: string; computed: boolean }> {
  if (args.scheduleFile) {
    const file = readScheduleFile(args.scheduleFile);
    const have = new Set(file.tasks.map((t) => t.taskId));
    const missing = args.tasks.filter((t) => !have.has(t.id)).map((t) => t.id);
    if (missing.length > 0) {
      throw new UserError(
        "noise.schedule_incomplete",
        `schedule ${args.scheduleFile} has no event for ${missing.join(", ")}; regenerate it with ` +
          "`rehearsal noise schedule --tasks <the same tasks> --out FILE`",
      );
    }
    return { file, path: args.scheduleFile, computed: false };
  }
  const options = parseScheduleOptions({ horizon: args.config.maxSteps ?? 15 });
  const file = await evaluationScheduleFor(args.env, args.tasks, args.config.seed, options);
  const path = join(args.config.store, `noise-schedule-${args.runIdPrefix}.json`);
  writeScheduleFile(path, file);
  return { file, path, computed: true };
}

/**
 * `rehearsal eval --noise heldout`: every policy on the same tasks and episode seeds, clean and with
 * the precomputed held-out schedule (one event per task, common random numbers across policies).
 */
export async function runNoisyEval(args: NoisyEvalArgs, o: Output): Promise<RobustnessReport> {
  const { config, store, runtime } = args;
  const schedule = await loadSchedule(args);
  const byTask = new Map<string, PlannedNoiseEvent[]>(schedule.file.tasks.map((t) => [t.taskId, t.events]));
  const entrants = [];
  for (const name of args.policies) {
    const policyConfig = RunConfigSchema.parse({ ...config, policy: name });
    entrants.push({ label: name, policy: await createPolicyFromConfig(policyConfig, runtime) });
  }
  const progress = createProgress(args.tasks.length * config.episodes * entrants.length * 2, {
    json: o.json,
    label: "rollouts",
  });
  let report: RobustnessReport;
  const created: string[] = [];
  try {
    report = await evaluateRobustness(
      {
        env: args.env,
        runtime,
        store,
        signal: args.signal,
        onEpisode: (done) => progress.update(done),
        onRun: ({ runId, label, condition }) => {
          created.push(runId);
          store.createRun({
            id: runId,
            kind: "eval",
            seed: config.seed,
            config: { ...config, policy: label, noise: condition === "noisy" ? schedule.path : null },
            codeVersion: codeVersion(),
            createdAtMs: runtime.clock.nowMs(),
          });
          for (const t of args.tasks) store.putTask(runId, t);
        },
      },
      entrants,
      {
        runIdPrefix: args.runIdPrefix,
        tasks: args.tasks,
        rollouts: config.episodes,
        temperature: config.temperature,
        seed: config.seed,
        ks: args.ks,
        ...(config.maxSteps ? { maxSteps: config.maxSteps } : {}),
        schedule: byTask,
      },
    );
  } catch (e) {
    for (const runId of created) markRunFailed(store, runId, runtime, e);
    throw e;
  } finally {
    progress.stop();
    for (const e of entrants) await e.policy.close?.();
  }
  for (const e of report.entrants) {
    for (const [condition, run] of [
      ["clean", e.clean],
      ["noisy", e.noisy],
    ] as const) {
      store.updateRun(run.runId, {
        status: report.interrupted ? "interrupted" : "complete",
        summary: { pass: run.pass, condition },
        updatedAtMs: runtime.clock.nowMs(),
      });
    }
  }
  printReport(o, report, args.ks, schedule, config.episodes);
  return report;
}

function printReport(
  o: Output,
  report: RobustnessReport,
  ks: ReadonlyArray<number>,
  schedule: { file: NoiseScheduleFile; path: string; computed: boolean },
  rollouts: number,
): void {
  o.result({ ...report, schedule: { path: schedule.path, computed: schedule.computed } });
  const pct = (r: Record<string, number>) => ks.map((k) => formatPercent(r[k] ?? 0));
  const head = (first: string) => [
    first,
    "tasks",
    ...ks.map((k) => `clean pass@${k}`),
    ...ks.map((k) => `noisy pass@${k}`),
  ];
  o.line(
    `noisy evaluation — ${rollouts} rollouts per task, one held-out perturbation per task from ${schedule.path}` +
      (schedule.computed ? " (computed now; pass --schedule to reuse it)" : ""),
  );
  for (const e of report.entrants) {
    o.line();
    o.line(
      `${e.label}: noise fired in ${e.noise.fired}/${e.noise.episodes} noisy episodes, recovered in ${e.noise.recovered}`,
    );
    o.table(
      head("group"),
      e.clean.pass.map((row) => {
        const noisy = e.noisy.pass.find((r) => r.group === row.group);
        return [row.group, row.tasks, ...pct(row.passAt), ...pct(noisy?.passAt ?? {})];
      }),
    );
    o.table(
      head("noise tier"),
      e.perNoiseTier.map((r) => [r.generator, r.tasks, ...pct(r.clean), ...pct(r.noisy)]),
    );
    o.table(
      head("generator"),
      e.perGenerator.map((r) => [`${r.generator} (${r.tier})`, r.tasks, ...pct(r.clean), ...pct(r.noisy)]),
    );
  }
  o.line();
  o.line("cross-evaluation (all tasks):");
  o.table(
    ["policy", ...ks.map((k) => `clean pass@${k}`), ...ks.map((k) => `noisy pass@${k}`)],
    report.cross.map((c) => [c.label, ...pct(c.clean), ...pct(c.noisy)]),
  );
}
