import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRuntime, type Environment, type Task } from "../../core/index.ts";
import { worldbookWorldModel } from "../../rl/worldbook-model.ts";
import { createEnvironmentFromConfig, selectTasks } from "../../runner/environments.ts";
import { createWorldModelEnvironment } from "../../worldmodel/environment/index.ts";
import { buildWorldbook, worldbookDefaultsFor, writeWorldbook } from "../../worldmodel/index.ts";
import { unlessStopped, writeJsonFile } from "../interrupt.ts";
import { recordFamilyTraces } from "../worldmodel/record.ts";
import { type ArmTraining, curveIterations, trainArm } from "./arm.ts";
import {
  type WmLoopOptionsInput,
  WmLoopOptionsSchema,
  type WmLoopSetting,
  wmLoopSettings,
} from "./options.ts";
import { evaluateInReal, type RealEvaluation } from "./real-eval.ts";
import {
  type WmLoopArmResult,
  type WmLoopFamilyResult,
  type WmLoopResults,
  WmLoopResultsSchema,
} from "./results.ts";
import { wmLoopCallsSvg, wmLoopCurveSvg } from "./svg.ts";
import { memoWorldModel } from "./wm-memo.ts";

export interface WmLoopDeps {
  /** Where the worldbooks, results.json and the SVG curves go. */
  out: string;
  /** Wall clock in ms: the arms' time budgets and the timings (the CLI passes `performance.now`). */
  now: () => number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  /** Replaces the settings the options give (a test's own configuration). */
  settings?: ReadonlyArray<WmLoopSetting>;
}

async function armResult(
  training: ArmTraining,
  setting: WmLoopSetting,
  evaluate: (weights: Record<string, number>) => Promise<RealEvaluation>,
): Promise<WmLoopArmResult> {
  const curve: WmLoopArmResult["curve"] = [];
  for (const it of curveIterations(training, setting.curvePoints))
    curve.push({
      iteration: it.point.iteration + 1,
      seconds: it.seconds,
      trainSuccess: it.point.successRate ?? 0,
      trainWmCalls: it.point.wmCallsPerTrajectory ?? 0,
      real: await evaluate(it.weights),
    });
  const last = curve.at(-1);
  return {
    arm: training.arm,
    iterations: training.iterations.length,
    seconds: training.seconds,
    load: training.load,
    trainSuccess: training.iterations.map((i) => i.point.successRate ?? 0),
    trainWmCalls: training.iterations.map((i) => i.point.wmCallsPerTrajectory ?? 0),
    curve,
    final: last ? last.real : await evaluate({}),
  };
}

async function runFamily(
  setting: WmLoopSetting,
  seed: string,
  deps: WmLoopDeps,
): Promise<WmLoopFamilyResult> {
  const started = deps.now();
  const say = (m: string) => deps.onProgress?.(`${setting.name}: ${m}`);
  say("recording real traces");
  const rec = await recordFamilyTraces({
    name: setting.name,
    family: setting.family,
    envOptions: setting.envOptions,
    tasks: setting.tasks,
    ...(setting.tier ? { tier: setting.tier } : {}),
    batches: setting.recording,
    maxSteps: setting.grpo.tMax,
    seed: `${seed}|${setting.name}|record`,
  });
  const built = deps.now();
  const book = buildWorldbook(rec.steps, worldbookDefaultsFor([setting.family]), { tasks: rec.tasks });
  const dir = join(deps.out, setting.name, "worldbook");
  writeWorldbook(dir, book);
  const bookSeconds = (deps.now() - built) / 1000;
  const envs: Environment[] = [];
  try {
    const runtime = (arm: string) => createRuntime({ seed: `${seed}|${setting.name}|${arm}` });
    const real = await createEnvironmentFromConfig(
      { env: setting.family, envOptions: setting.envOptions, suite: "builtin" },
      runtime("real-env"),
    );
    envs.push(real);
    const world = await createWorldModelEnvironment({ book });
    envs.push(world);
    const realTasks: Task[] = selectTasks(real.suite, setting.tasks);
    const worldTasks: Task[] = selectTasks(world.suite, setting.tasks);
    // WM-R1: the policy consults a learnt world model, in training and when deployed, so both arms
    // and the real-environment evaluation ask the family's worldbook (never the snapshot oracle),
    // its answers memoised (the worldbook answers from the observation alone).
    const worldModel = setting.wm ? memoWorldModel(worldbookWorldModel(book)) : undefined;
    const armDeps = {
      now: deps.now,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(worldModel ? { worldModel } : {}),
    };
    const trained: ArmTraining[] = [];
    for (const [arm, env, tasks] of [
      ["world-model", world, worldTasks],
      ["real", real, realTasks],
    ] as const) {
      say(`training in the ${arm} environment (${JSON.stringify(setting.budget)})`);
      trained.push(await trainArm({ ...armDeps, env, tasks, runtime: runtime(arm) }, setting, arm, seed));
      // A stop request ends the arm's GRPO; the family is then dropped (see `runWmLoop`).
      deps.signal?.throwIfAborted();
    }
    const [wm, re] = trained as [ArmTraining, ArmTraining];
    say("evaluating in the real environment");
    const evaluate = (weights: Record<string, number>) => {
      deps.signal?.throwIfAborted();
      return evaluateInReal(
        { env: real, tasks: realTasks, runtime: runtime("eval"), ...(worldModel ? { worldModel } : {}) },
        setting.kind,
        weights,
        {
          episodes: setting.evalEpisodes,
          seed: `${seed}|${setting.name}|eval`,
          maxSteps: setting.grpo.tMax,
          ...(setting.wm ? { wm: setting.wm } : {}),
        },
      );
    };
    const initial = await evaluate({});
    const arms: [WmLoopArmResult, WmLoopArmResult] = [
      await armResult(wm, setting, evaluate),
      await armResult(re, setting, evaluate),
    ];
    return {
      name: setting.name,
      family: setting.family,
      kind: setting.kind,
      ...(setting.wm ? { wm: { ...setting.wm, worldModel: "worldbook" as const } } : {}),
      envOptions: setting.envOptions,
      tasks: realTasks.map((t) => t.id),
      traces: { episodes: new Set(rec.steps.map((s) => s.episodeId)).size, transitions: rec.steps.length },
      worldbook: { dir, rules: book.rules.length, seconds: bookSeconds },
      budget: setting.budget,
      initial,
      arms,
      seconds: (deps.now() - started) / 1000,
    };
  } finally {
    for (const e of envs) await e.close();
  }
}

/**
 * `rehearsal experiment wm-loop`: per family, record real traces, build a worldbook, train GRPO (a) in
 * the world model and (b) in the real environment for the same seconds, and score the initial policy
 * and both arms' checkpoints in the real environment. Writes `results.json` (validated) and one SVG
 * curve per family (real-environment pass@1 against training seconds) into `out`.
 */
export async function runWmLoop(input: WmLoopOptionsInput, deps: WmLoopDeps): Promise<WmLoopResults> {
  const config = WmLoopOptionsSchema.parse(input);
  const started = deps.now();
  mkdirSync(deps.out, { recursive: true });
  const families: WmLoopFamilyResult[] = [];
  const settings = deps.settings ?? wmLoopSettings(config);
  const snapshot = (status: WmLoopResults["status"]) => {
    const calls = families.flatMap((f) => [f.initial, ...f.arms.flatMap((a) => a.curve.map((c) => c.real))]);
    const any = calls.some((e) => e.wmCallsPerTrajectory > 0);
    return WmLoopResultsSchema.parse({
      experiment: "wm-loop",
      status,
      config,
      families,
      wmCalls: any
        ? "the WM-consulting policy asked the worldbook world model: see wmCallsPerTrajectory (real-environment evaluations) and trainWmCalls (training rollouts)"
        : families.some((f) => f.wm)
          ? "none: the learnt gates of the WM-consulting policies never opened in the evaluations"
          : "none: the plain trainable (tabular/linear) policies make no <call_wm> calls (wmGate off); wmCallsPerTrajectory is 0 throughout",
      seconds: (deps.now() - started) / 1000,
    });
  };
  for (const setting of settings) {
    const result = await unlessStopped(deps.signal, () => runFamily(setting, config.seed, deps));
    if (!result) break;
    writeFileSync(join(deps.out, `curve-${setting.name}.svg`), wmLoopCurveSvg(result));
    writeFileSync(join(deps.out, `wm-calls-${setting.name}.svg`), wmLoopCallsSvg(result));
    families.push(result);
    if (families.length < settings.length) writeJsonFile(join(deps.out, "results.json"), snapshot("running"));
  }
  const results = snapshot(families.length === settings.length ? "complete" : "interrupted");
  writeJsonFile(join(deps.out, "results.json"), results);
  return results;
}
