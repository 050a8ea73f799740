import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ErrorCategory, toRehearsalError, UserError } from "../../core/index.ts";
import { resolveDynamics } from "../../envs/frozenlake/config.ts";
import { stateViewerFor } from "../../envs/state-viewers.ts";
import {
  type FamilyEvalReport,
  frozenLakeTrueDistribution,
  learningCurveSvg,
} from "../../worldmodel/eval/index.ts";
import type { W2rResult } from "../../worldmodel/eval/w2r.ts";
import {
  buildWorldbook,
  HELDOUT_SPLITS,
  heldoutTracePath,
  splitTraces,
  worldbookDefaultsFor,
  writeTraceFile,
  writeWorldbook,
} from "../../worldmodel/index.ts";
import { ruleCounts } from "../../worldmodel/worldbook/describe.ts";
import { stopRequested } from "../interrupt.ts";
import { evaluateBook } from "./evaluate.ts";
import {
  type ExperimentFamily,
  type ExperimentScale,
  type FamilySetting,
  familySettings,
} from "./families.ts";
import { recordFamilyTraces } from "./record.ts";
import { formatExperimentReport } from "./report.ts";
import { recoverSlip, type SlipRecovery } from "./slip.ts";
import { worldToRealOfBook } from "./w2r-run.ts";

export interface ExperimentOptions {
  families: ReadonlyArray<ExperimentFamily>;
  /** Where the worldbooks, held-out traces, report.md, report.json and SVGs go. */
  out: string;
  scale?: ExperimentScale;
  seed?: string;
  /** Replaces the settings `families`/`scale` give (a test's own small configuration). */
  settings?: ReadonlyArray<FamilySetting>;
  /** Wall clock in ms, for the timings the report shows (default Date.now). */
  now?: () => number;
  /** Called as each setting starts and ends (progress for the CLI). */
  onProgress?: (message: string) => void;
  /** A stop request (the CLI's SIGINT/SIGTERM): no setting starts after it; the completed ones are reported. */
  signal?: AbortSignal;
}

/** What one family setting gave. */
export interface SettingResult {
  name: string;
  label: string;
  family: string;
  envOptions: Record<string, unknown>;
  traces: { episodes: number; transitions: number; build: number; validation: number; test: number };
  rules: ReturnType<typeof ruleCounts>;
  eval: FamilyEvalReport;
  slip?: SlipRecovery;
  w2r: Omit<W2rResult, "episodes">;
  worldbook: string;
  seconds: number;
}

/** A setting that could not be run to the end: which, and the typed error that stopped it. */
export interface SettingFailure {
  name: string;
  label: string;
  error: { code: string; category: ErrorCategory; message: string };
}

export interface ExperimentReport {
  seed: string;
  scale: ExperimentScale | "custom";
  settings: SettingResult[];
  /** Settings that failed (the others are still reported). */
  failures: SettingFailure[];
  seconds: number;
  /** `interrupted` when a stop request came before every setting ran (the settings completed are kept). */
  status: "complete" | "interrupted";
}

async function runSetting(
  setting: FamilySetting,
  options: Required<Pick<ExperimentOptions, "out" | "now">> & { seed: string },
) {
  const started = options.now();
  const rec = await recordFamilyTraces(setting.recording);
  const viewer = stateViewerFor(rec.family);
  if (!viewer)
    throw new UserError("experiment.no_viewer", `world-model experiment: no state viewer for ${rec.family}`);
  const split = splitTraces(rec.steps, { seed: `${options.seed}|${rec.name}` });
  const buildOptions = worldbookDefaultsFor([rec.family]);
  const book = buildWorldbook(split.steps.build, buildOptions, {
    tasks: rec.tasks,
    split: split.manifest,
  });
  const dir = join(options.out, rec.name, "worldbook");
  writeWorldbook(dir, book);
  for (const s of HELDOUT_SPLITS) writeTraceFile(heldoutTracePath(dir, s), split.steps[s]);
  const evaluation = await evaluateBook(book, split.steps.test, {
    family: rec.family,
    viewer,
    tasks: rec.tasks,
    ...(setting.slip ? { trueDistribution: frozenLakeTrueDistribution(rec.envOptions) } : {}),
    learningCurve: {
      buildSteps: split.steps.build,
      seed: `${options.seed}|${rec.name}`,
      build: buildOptions,
    },
  });
  const svg = learningCurveSvg(evaluation.learningCurve as NonNullable<FamilyEvalReport["learningCurve"]>);
  writeFileSync(join(options.out, `learning-curve-${rec.name}.svg`), svg);
  const w2r = await worldToRealOfBook(book, rec.family, rec.envOptions, setting.w2r);
  const { episodes: _episodes, ...w2rFigures } = w2r;
  const result: SettingResult = {
    name: rec.name,
    label: setting.label,
    family: rec.family,
    envOptions: rec.envOptions,
    traces: {
      episodes: new Set(rec.steps.map((s) => s.episodeId)).size,
      transitions: rec.steps.length,
      build: split.steps.build.length,
      validation: split.steps.validation.length,
      test: split.steps.test.length,
    },
    rules: ruleCounts(book.rules),
    eval: evaluation,
    ...(setting.slip ? { slip: recoverSlip(book, resolveDynamics(rec.envOptions)) } : {}),
    w2r: w2rFigures,
    worldbook: dir,
    seconds: (options.now() - started) / 1000,
  };
  writeFileSync(
    join(options.out, rec.name, "w2r-episodes.json"),
    `${JSON.stringify(w2r.episodes, null, 2)}\n`,
  );
  return result;
}

/**
 * The per-family world-model experiment: for every setting, record real episodes, split them by
 * episode, build the worldbook (written with its held-out traces, as `worldbook build` does), evaluate
 * the five systems with TV, multi-turn, ablations and a learning curve, recover FrozenLake's slip, and
 * run W2R. Writes `report.json`, `report.md` and one learning-curve SVG per setting into `out`. A
 * setting that fails is recorded in `failures` with its typed error and the others still run.
 */
export async function runWorldModelExperiment(options: ExperimentOptions): Promise<ExperimentReport> {
  const now = options.now ?? Date.now;
  const seed = options.seed ?? "0";
  const started = now();
  const settings = options.settings ?? familySettings(options.families, options.scale ?? "full", seed);
  mkdirSync(options.out, { recursive: true });
  const results: SettingResult[] = [];
  const failures: SettingFailure[] = [];
  for (const setting of settings) {
    if (stopRequested(options.signal)) break;
    options.onProgress?.(`${setting.label}: recording, building, evaluating`);
    const begun = now();
    try {
      results.push(await runSetting(setting, { out: options.out, now, seed }));
      options.onProgress?.(`${setting.label}: done in ${((now() - begun) / 1000).toFixed(1)} s`);
    } catch (error) {
      if (stopRequested(options.signal)) break;
      // One family's failure does not lose the others: it is recorded, reported and raised by the caller.
      const e = toRehearsalError(error);
      failures.push({
        name: setting.recording.name,
        label: setting.label,
        error: { code: e.code, category: e.category, message: e.message },
      });
      options.onProgress?.(`${setting.label}: FAILED [${e.code}] ${e.message}`);
    }
  }
  const report: ExperimentReport = {
    seed,
    scale: options.settings ? "custom" : (options.scale ?? "full"),
    settings: results,
    failures,
    seconds: (now() - started) / 1000,
    status: results.length + failures.length === settings.length ? "complete" : "interrupted",
  };
  writeFileSync(join(options.out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(options.out, "report.md"), formatExperimentReport(report));
  return report;
}
