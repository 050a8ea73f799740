import { loadavg } from "node:os";
import type { Environment, Runtime, Task } from "../../core/index.ts";
import type { CurvePoint } from "../../policies/trainable/index.ts";
import type { WorldModel } from "../../rl/world-model.ts";
import { GrpoOptionsSchema, trainGrpo } from "../../train/index.ts";
import type { WmLoopSetting } from "./options.ts";

/** One iteration of an arm: its training curve point, the seconds of training so far and the weights after it. */
export interface ArmIteration {
  point: CurvePoint;
  seconds: number;
  weights: Record<string, number>;
}

export interface ArmTraining {
  /** `world-model` trains in `worldmodel:DIR`, `real` in the real environment. */
  arm: "world-model" | "real";
  iterations: ArmIteration[];
  /** Seconds of training (rollouts + updates), evaluation excluded. */
  seconds: number;
  /** The machine's 1-minute load average when the arm started and ended (the arms run one after the other). */
  load: [number, number];
}

export interface ArmDeps {
  env: Environment;
  tasks: ReadonlyArray<Task>;
  runtime: Runtime;
  /** Wall clock in ms (the CLI passes a real timer; a test may pass its own). */
  now: () => number;
  signal?: AbortSignal;
  /** The world model the WM-consulting policy asks (with `setting.wm`). */
  worldModel?: WorldModel;
}

/**
 * GRPO (`trainGrpo` of `src/train`) on the setting's trainable policy from the uniform policy, for the
 * setting's budget: a time budget stops the run after the first iteration that ends past it (so
 * both arms get the same seconds of training, each as many iterations as fit), fixed iterations run
 * exactly that many. Every iteration's weights are kept for the real-environment curve.
 */
export async function trainArm(
  deps: ArmDeps,
  setting: WmLoopSetting,
  arm: ArmTraining["arm"],
  seed: string,
): Promise<ArmTraining> {
  const options = GrpoOptionsSchema.parse({
    kind: setting.kind,
    iterations: "iterations" in setting.budget ? setting.budget.iterations : 100_000,
    learningRate: setting.grpo.learningRate,
    ...(setting.wm ? { wm: setting.wm } : {}),
    rollouts: {
      group: setting.grpo.group,
      tMax: setting.grpo.tMax,
      rewards: { beta: setting.grpo.beta },
    },
  });
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  deps.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const started = deps.now();
  const loadBefore = loadavg()[0] ?? 0;
  const iterations: ArmIteration[] = [];
  const budget = "seconds" in setting.budget ? setting.budget.seconds : Number.POSITIVE_INFINITY;
  try {
    await trainGrpo(
      {
        env: deps.env,
        tasks: deps.tasks,
        runtime: deps.runtime,
        signal: stop.signal,
        ...(deps.worldModel ? { worldModel: deps.worldModel } : {}),
        onIteration: (checkpoint, point) => {
          const seconds = (deps.now() - started) / 1000;
          iterations.push({ point, seconds, weights: checkpoint.weights });
          if (seconds >= budget) stop.abort();
        },
      },
      options,
      { family: setting.family, seed: `${seed}|${setting.name}|${arm}` },
    );
  } finally {
    deps.signal?.removeEventListener("abort", onOuterAbort);
  }
  return { arm, iterations, seconds: (deps.now() - started) / 1000, load: [loadBefore, loadavg()[0] ?? 0] };
}

/**
 * The iterations whose checkpoints the curve evaluates: `points` spread evenly over the arm's seconds
 * (over its iterations when no time passed, e.g. an injected clock), the last always.
 */
export function curveIterations(training: ArmTraining, points: number): ArmIteration[] {
  const its = training.iterations;
  const last = its.at(-1);
  if (!last) return [];
  const byTime = last.seconds > 0;
  const chosen = new Set<ArmIteration>();
  for (let p = 1; p <= points; p++) {
    const hit = byTime
      ? (its.find((i) => i.seconds >= (last.seconds * p) / points) ?? last)
      : (its[Math.ceil((its.length * p) / points) - 1] ?? last);
    chosen.add(hit);
  }
  return its.filter((i) => chosen.has(i));
}
