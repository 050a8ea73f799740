import { join } from "node:path";
import { UserError } from "../core/index.ts";
import { evaluateRobustness, type RobustnessReport } from "../eval/index.ts";
import {
  type NoiseScheduleFile,
  type PlannedNoiseEvent,
  parseScheduleOptions,
  readScheduleFile,
  writeScheduleFile,
} from "../noise/index.ts";
import type { RunConfig } from "./config.ts";
import { rolloutSpecOf } from "./execute-eval.ts";
import { evaluationScheduleFor } from "./noise-schedule.ts";
import { type RunnerDeps, type RunSession, withRunSession } from "./run-session.ts";

export interface NoisyEvalSpec {
  config: RunConfig;
  /** Policy names to compare (each evaluated clean and noisy). */
  policies: ReadonlyArray<string>;
  ks: ReadonlyArray<number>;
  /** A precomputed schedule file; without one the schedule is computed and written beside the store. */
  scheduleFile?: string;
  onEpisode?: (done: number, total: number) => void;
}

export interface ScheduleSource {
  file: NoiseScheduleFile;
  path: string;
  /** Computed by this evaluation (not read from `--schedule`). */
  computed: boolean;
}

export interface NoisyEvalOutcome {
  report: RobustnessReport;
  schedule: ScheduleSource;
  status: "complete" | "interrupted";
  /** Every run created (policy × condition), in order. */
  runIds: string[];
}

/** Loads the schedule file (every task must be in it) or computes one and writes it for reuse. */
async function loadSchedule(
  session: RunSession,
  spec: NoisyEvalSpec,
  prefix: string,
): Promise<ScheduleSource> {
  if (spec.scheduleFile) {
    const file = readScheduleFile(spec.scheduleFile);
    const have = new Set(file.tasks.map((t) => t.taskId));
    const missing = session.tasks.filter((t) => !have.has(t.id)).map((t) => t.id);
    if (missing.length > 0) {
      throw new UserError(
        "noise.schedule_incomplete",
        `schedule ${spec.scheduleFile} has no event for ${missing.join(", ")}; regenerate it with ` +
          "`rehearsal noise schedule --tasks <the same tasks> --out FILE`",
      );
    }
    return { file, path: spec.scheduleFile, computed: false };
  }
  const { config } = spec;
  const options = parseScheduleOptions({ horizon: config.maxSteps ?? 15 });
  const file = await evaluationScheduleFor(session.env, session.tasks, config.seed, options);
  const path = join(config.store, `noise-schedule-${prefix}.json`);
  writeScheduleFile(path, file);
  return { file, path, computed: true };
}

/**
 * `rehearsal eval --noise heldout`: every policy on the same tasks and episode seeds, clean and with
 * the precomputed held-out schedule (one event per task, common random numbers across policies).
 * Each policy × condition is its own eval run.
 */
export async function executeNoisyEval(deps: RunnerDeps, spec: NoisyEvalSpec): Promise<NoisyEvalOutcome> {
  const { config } = spec;
  return withRunSession(deps, { config }, async (session) => {
    // The policies first: one that cannot play these tasks fails before a schedule or run is written.
    const entrants = [];
    for (const name of spec.policies) entrants.push({ label: name, policy: await session.policy(name) });
    const prefix = session.runtime.ids.next("eval");
    const schedule = await loadSchedule(session, spec, prefix);
    const byTask = new Map<string, PlannedNoiseEvent[]>(schedule.file.tasks.map((t) => [t.taskId, t.events]));
    const runIds: string[] = [];
    const total = session.tasks.length * config.episodes * entrants.length * 2;
    const report = await evaluateRobustness(
      {
        env: session.env,
        runtime: session.runtime,
        store: deps.store,
        signal: session.signal,
        onEpisode: (done) => spec.onEpisode?.(done, total),
        onRun: ({ runId, label, condition }) => {
          runIds.push(runId);
          session.createRun("eval", {
            id: runId,
            config: { ...config, policy: label, noise: condition === "noisy" ? schedule.path : null },
          });
        },
      },
      entrants,
      { ...rolloutSpecOf(config, session.tasks, spec.ks), runIdPrefix: prefix, schedule: byTask },
    );
    let status: NoisyEvalOutcome["status"] = "complete";
    for (const e of report.entrants) {
      for (const [condition, run] of [
        ["clean", e.clean],
        ["noisy", e.noisy],
      ] as const) {
        status = session.finishRun(run.runId, { pass: run.pass, condition }, report.interrupted);
      }
    }
    return { report, schedule, status: report.interrupted ? "interrupted" : status, runIds };
  });
}
