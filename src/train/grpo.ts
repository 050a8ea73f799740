import { z } from "zod";
import type {
  Action,
  Environment,
  HistoryEntry,
  PolicyContext,
  Runtime,
  Task,
  Trajectory,
} from "../core/index.ts";
import { UserError } from "../core/index.ts";
import {
  actionKey,
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CurvePoint,
  createTrainablePolicy,
  logitsOf,
  Parameters,
  scoreState,
  softmax,
  type TrainableKind,
  type TrainablePolicy,
} from "../policies/trainable/index.ts";
import { WmGateOptionsSchema } from "../policies/trainable/wm-gate.ts";
import {
  playRolloutGroups,
  RolloutGroupOptionsSchema,
  type RolloutGroupsReport,
  scoreRolloutGroups,
  stepAdvantages,
} from "../rl/index.ts";
import type { WorldModel } from "../rl/world-model.ts";
import { createMemoryStore, type RunStore } from "../store/index.ts";
import { type BatchStep, clippedPolicyLoss, type PolicyGradientStep } from "./losses.ts";
import { createWmGatedPolicy, gateTerm, wmGatedStep } from "./wm-gated-policy.ts";

export const GrpoOptionsSchema = z
  .object({
    kind: z.enum(["tabular", "linear"]).default("tabular"),
    iterations: z.number().int().positive().max(100_000).default(20),
    /** Gradient steps on each iteration's batch (the PPO epochs). */
    updateSteps: z.number().int().positive().max(1000).default(4),
    learningRate: z.number().finite().positive().default(0.5),
    /** ε of the ratio clip. */
    clip: z.number().finite().positive().max(1).default(0.2),
    /** β of KL(π_θ ‖ π_init); 0 turns the term off (it is still reported). */
    kl: z.number().finite().min(0).default(0),
    temperature: z.number().finite().positive().max(5).default(1),
    rollouts: RolloutGroupOptionsSchema.prefault({}),
    /** Play (and train) the WM-consulting policy with these caps; needs `deps.worldModel`. */
    wm: WmGateOptionsSchema.optional(),
  })
  .strict();
export type GrpoOptions = z.infer<typeof GrpoOptionsSchema>;
export type GrpoOptionsInput = z.input<typeof GrpoOptionsSchema>;

export interface GrpoDeps {
  env: Environment;
  tasks: ReadonlyArray<Task>;
  runtime: Runtime;
  signal?: AbortSignal;
  /** After every iteration (its checkpoint is the caller's to write). */
  onIteration?: (checkpoint: Checkpoint, point: CurvePoint) => void;
  /** The world model the WM-consulting policy asks (with `options.wm`). */
  worldModel?: WorldModel;
  /** Each iteration's rollout trajectories, before the update (for inspection). */
  onRollouts?: (iteration: number, trajectories: ReadonlyArray<Trajectory>) => void;
}

export interface GrpoStart {
  family: string;
  seed: string;
  /** The policy to start from (default: all zeros, uniform over the candidates). */
  init?: Record<string, number>;
  /** A checkpoint of an earlier `train grpo` to continue (its weights, reference and curve). */
  resume?: Checkpoint;
}

/** The contexts a trajectory's policy saw, step by step (history as the rollout loop builds it). */
export function trajectoryContexts(
  task: Task,
  t: Trajectory,
): Array<{ context: PolicyContext; action: Action; raw: string }> {
  const history: HistoryEntry[] = [];
  const out: Array<{ context: PolicyContext; action: Action; raw: string }> = [];
  for (const s of t.steps) {
    if (s.action === null) continue;
    out.push({
      context: { task, observation: s.observation, history: [...history], stepIndex: s.index },
      action: s.action,
      raw: s.raw,
    });
    history.push({ observation: s.observation, action: s.action, raw: s.raw });
  }
  return out;
}

/** A step of the plain policy: its candidates' features and the index of the action taken. */
function plainStep(kind: TrainableKind, context: PolicyContext, action: Action): BatchStep {
  const state = scoreState(kind, context, action);
  return {
    features: state.features,
    chosen: state.actions.findIndex((a) => actionKey(a) === actionKey(action)),
  };
}

/** What a GRPO run holds between iterations. */
interface Training {
  options: GrpoOptions;
  start: GrpoStart;
  params: Parameters;
  referenceWeights: Record<string, number>;
  reference: Parameters;
  curve: CurvePoint[];
}

/** The batch of one iteration: every step of every scored member, with its advantage and probabilities. */
function iterationBatch(
  run: Training,
  store: RunStore,
  report: RolloutGroupsReport,
  tasks: ReadonlyMap<string, Task>,
): PolicyGradientStep[] {
  const { options, params, reference } = run;
  const kind = options.kind;
  const steps: PolicyGradientStep[] = [];
  for (const g of report.groups) {
    const task = tasks.get(g.taskId);
    if (!task) continue;
    for (const m of g.members) {
      const t = store.getTrajectory(m.trajectoryId);
      if (!t) continue;
      const contexts = trajectoryContexts(task, t);
      const advantages = stepAdvantages(m.advantage, contexts.length, options.rollouts.advantages);
      contexts.forEach(({ context, action, raw }, i) => {
        const step = options.wm ? wmGatedStep(kind, context, action, raw) : undefined;
        const state = step ?? plainStep(kind, context, action);
        const chosen = state.chosen;
        const gate = step ? gateTerm(step, options.temperature) : undefined;
        const old = softmax(logitsOf(params, state.features), options.temperature);
        const oldGate = gate ? Math.exp(gate.logProb(params)) : 1;
        steps.push({
          features: state.features,
          chosen,
          advantage: advantages[i] ?? 0,
          oldProb: Math.max((old[chosen] ?? 0) * oldGate, 1e-12),
          reference: softmax(logitsOf(reference, state.features), options.temperature),
          ...(gate ? { gate } : {}),
        });
      });
    }
  }
  return steps;
}

function curvePoint(iteration: number, report: RolloutGroupsReport, loss: number, kl: number): CurvePoint {
  const members = report.groups.flatMap((g) => g.members);
  const n = Math.max(1, members.length);
  return {
    iteration,
    loss,
    kl,
    successRate: members.filter((m) => m.success).length / n,
    meanReward: members.reduce((a, m) => a + m.reward, 0) / n,
    meanLength: members.reduce((a, m) => a + m.length, 0) / n,
    wmCallsPerTrajectory: members.reduce((a, m) => a + m.wmCalls, 0) / n,
  };
}

/**
 * GRPO on a trainable policy: each iteration plays G members per task with the current policy
 * (`playRolloutGroups`, on a memory store), scores composite rewards and group advantages
 * (`scoreRolloutGroups`), spreads each member's advantage over its steps (`stepAdvantages`) and takes
 * `updateSteps` gradient steps on the clipped policy-gradient loss (ratio to the rollout policy, KL to
 * the initial policy). Iteration k's rollouts are seeded by (seed, k), so a run is deterministic per
 * seed and a resumed run reaches the same checkpoint as one that was never interrupted.
 */
export async function trainGrpo(deps: GrpoDeps, options: GrpoOptions, start: GrpoStart): Promise<Checkpoint> {
  const first = start.resume?.training?.iterations ?? 0;
  const referenceWeights = start.resume?.training?.reference ?? start.init ?? {};
  const run: Training = {
    options,
    start,
    params: Parameters.from(start.resume?.weights ?? start.init ?? {}),
    referenceWeights,
    reference: Parameters.from(referenceWeights),
    curve: [...(start.resume?.training?.curve ?? [])],
  };
  const { params } = run;
  const policy = trainingPolicy(options, params, deps.worldModel);
  const tasks = new Map(deps.tasks.map((t) => [t.id, t] as const));
  let checkpoint: Checkpoint = snapshot(run, first);
  for (let it = first; it < options.iterations; it++) {
    if (deps.signal?.aborted) break;
    const store = createMemoryStore();
    const runId = `grpo-${it}`;
    store.createRun({
      id: runId,
      kind: "rl",
      seed: start.seed,
      config: {},
      codeVersion: "train",
      createdAtMs: 0,
    });
    await playRolloutGroups(
      {
        env: deps.env,
        policy,
        runtime: deps.runtime,
        store,
        ...(deps.signal ? { signal: deps.signal } : {}),
      },
      {
        runId,
        tasks: deps.tasks,
        seed: `${start.seed}:grpo:${it}`,
        temperature: options.temperature,
        options: options.rollouts,
      },
    );
    if (deps.signal?.aborted) break;
    if (deps.onRollouts) deps.onRollouts(it, [...store.iterateTrajectories(runId)]);
    const report = scoreRolloutGroups(store.iterateTrajectories(runId), options.rollouts);
    const batch = iterationBatch(run, store, report, tasks);
    store.close();
    const clip = { clip: options.clip, kl: options.kl, temperature: options.temperature };
    const before = clippedPolicyLoss(params, batch, clip);
    for (let u = 0; u < options.updateSteps; u++)
      clippedPolicyLoss(params, batch, clip).grad.descend(params, options.learningRate);
    const point = curvePoint(it, report, before.loss, before.kl);
    run.curve.push(point);
    checkpoint = snapshot(run, it + 1);
    deps.onIteration?.(checkpoint, point);
  }
  return checkpoint;
}

/** The policy GRPO plays: the plain trainable one, or the WM-consulting one when `options.wm` is set. */
function trainingPolicy(
  options: GrpoOptions,
  params: Parameters,
  wm: WorldModel | undefined,
): TrainablePolicy {
  if (!options.wm) return createTrainablePolicy(options.kind, params);
  if (!wm)
    throw new UserError(
      "train.wm_missing",
      "GRPO with the WM gate (options.wm) needs a world model to consult; pass deps.worldModel (a worldbook's or the perfect one)",
    );
  return createWmGatedPolicy(options.kind, params, wm, options.wm);
}

/** The checkpoint of a run after `iterations` iterations. */
function snapshot(run: Training, iterations: number): Checkpoint {
  return {
    format: "rehearsal-trainable-policy",
    version: CHECKPOINT_VERSION,
    kind: run.options.kind,
    family: run.start.family,
    ...(run.options.wm ? { wm: run.options.wm } : {}),
    weights: run.params.toRecord(),
    training: {
      method: "grpo",
      seed: run.start.seed,
      iterations,
      options: run.options,
      curve: [...run.curve],
      reference: { ...run.referenceWeights },
    },
  };
}
