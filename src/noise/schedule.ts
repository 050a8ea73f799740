import { z } from "zod";
import { createRandom, type Random, UserError } from "../core/index.ts";
import { generatorsOf } from "./catalog.ts";
import type { NoiseGenerator } from "./generator.ts";

/**
 * Noise schedules (SEEDS.md §1, OSWorld-Noisy): how many perturbations fire in an episode, after
 * which actions, and which generator each one uses.
 *
 * Rules:
 * - Fire count from the task's recent success rate s ({@link fireCount}): s < 0.10 → 0; < 0.25 → 1;
 *   < 0.50 → uniform{1,2,3}; otherwise uniform{3,4,5}. Evaluation always fires exactly one event,
 *   drawn from the held-out generators ({@link evaluationSchedule}).
 * - Step t means the event fires right after the agent's t-th action (t = 0: right after reset, before
 *   the first action); the next observation shows it. Reset and task setup are always protected.
 * - Every event leaves room for recovery: step ≤ horizon − cost − buffer for its generator. Events
 *   fall inside the expected episode (step ≤ span − 1) and never before `protectedSteps` (nor, when a
 *   schedule is sampled mid-episode, before `fromStep`).
 * - Fire steps are bucket-spaced: the allowed range is split into N equal consecutive buckets and one
 *   step is drawn uniformly inside each, so steps are strictly increasing.
 * - Each event's generator is uniform among the split's generators that fit at its step and, for
 *   non-repeatable ones, were not used yet in the schedule; the event is skipped when none fits.
 * - Seeds are stable hashes of purpose|task|rollout|fromStep, never process-salted: the same
 *   arguments give the same schedule in every process and on every machine.
 */

/** One perturbation of a schedule. */
export interface ScheduledEvent {
  /** Unique within the schedule: `n<step>-<index>`. */
  id: string;
  /**
   * Fires right after the agent's `step`-th action (0: right after reset, before the first action),
   * so the next observation shows it.
   */
  step: number;
  /** Catalog name of the generator. */
  generator: string;
  /** uint32; the concrete effect is `generator.build(createRandom("noise-event", seed))`. */
  seed: number;
}

export const ScheduledEventSchema = z
  .object({
    id: z.string().min(1),
    step: z.number().int().nonnegative(),
    generator: z.string().min(1),
    seed: z
      .number()
      .int()
      .nonnegative()
      .max(2 ** 32 - 1),
  })
  .strict();

export type NoisePurpose = "search" | "rl" | "eval";

/** The events of one episode (or of the rest of one, from `fromStep`), sorted by step. */
export interface NoiseSchedule {
  taskId: string;
  rollout: string;
  purpose: NoisePurpose;
  events: ScheduledEvent[];
}

/**
 * Placement options. `horizon`: the episode's step limit; `span`: the expected episode length (events
 * are placed at steps ≤ span − 1; default: the horizon); `protectedSteps`: no event before this step;
 * `buffer`: steps left after the recovery cost (step ≤ horizon − cost − buffer).
 */
export const ScheduleOptionsSchema = z
  .object({
    horizon: z.number().int().positive().default(15),
    span: z.number().int().positive().optional(),
    protectedSteps: z.number().int().nonnegative().default(0),
    buffer: z.number().int().nonnegative().default(1),
  })
  .strict();
export type ScheduleOptions = z.output<typeof ScheduleOptionsSchema>;
export type ScheduleOptionsInput = z.input<typeof ScheduleOptionsSchema>;

/** Parses schedule options; a bad value is a UserError naming the field. */
export function parseScheduleOptions(options: ScheduleOptionsInput = {}): ScheduleOptions {
  const r = ScheduleOptionsSchema.safeParse(options);
  if (!r.success) {
    const issues = r.error.issues
      .map((i) => `${["options", ...i.path.map(String)].join(".")}: ${i.message}`)
      .join("; ");
    throw new UserError("noise.options_invalid", `invalid noise schedule options: ${issues}`, {
      details: { issues: r.error.issues },
    });
  }
  return r.data;
}

/**
 * How many events fire in an episode, from the task's recent success rate `s` (SEEDS.md §1):
 * s < 0.10 → 0; s < 0.25 → 1; s < 0.50 → uniform{1,2,3}; otherwise uniform{3,4,5}.
 * Throws a UserError (`noise.bad_success_rate`) for NaN or s outside [0, 1].
 */
export function fireCount(successRate: number, random: Random): number {
  if (!(successRate >= 0 && successRate <= 1)) {
    throw new UserError(
      "noise.bad_success_rate",
      `success rate must be a number in [0, 1], got ${successRate}; pass the task's recent success rate`,
    );
  }
  if (successRate < 0.1) return 0;
  if (successRate < 0.25) return 1;
  if (successRate < 0.5) return 1 + random.int(3);
  return 3 + random.int(3);
}

/** The last step at which generator `g` may fire: room for its recovery cost plus the buffer. */
export function lastStepFor(g: Pick<NoiseGenerator, "cost">, options: ScheduleOptions): number {
  return Math.min(spanOf(options) - 1, options.horizon - g.cost - options.buffer);
}

function spanOf(options: ScheduleOptions): number {
  return options.span ?? options.horizon;
}

/** A uint32 seed for one event's concrete effect. */
function eventSeed(random: Random): number {
  return random.int(2 ** 32);
}

/**
 * Bucket-spaced fire steps: the range [lo, hi] is split into `n` equal consecutive buckets (n ≤ its
 * size) and one step is drawn uniformly inside each, so the steps are strictly increasing.
 */
export function bucketSteps(lo: number, hi: number, n: number, random: Random): number[] {
  const size = hi - lo + 1;
  const count = Math.min(n, Math.max(0, size));
  const steps: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = lo + Math.floor((i * size) / count);
    const end = lo + Math.floor(((i + 1) * size) / count) - 1;
    steps.push(start + random.int(end - start + 1));
  }
  return steps;
}

/**
 * Samples the noise schedule of one rollout (search branch, RL group or a custom evaluation).
 * Seeded only by `createRandom("noise", purpose, taskId, rollout, fromStep)`, so it is identical
 * across processes and machines. `split` selects `generatorsOf(split)` unless `generators` is given.
 * `fromStep` (default 0) samples the rest of an episode that is already at that step: no event fires
 * before it.
 */
export function sampleSchedule(args: {
  taskId: string;
  rollout: string | number;
  purpose: NoisePurpose;
  successRate: number;
  split: "train" | "heldout";
  options?: ScheduleOptionsInput;
  fromStep?: number;
  generators?: ReadonlyArray<NoiseGenerator>;
}): NoiseSchedule {
  const options = parseScheduleOptions(args.options);
  const fromStep = args.fromStep ?? 0;
  if (!Number.isInteger(fromStep) || fromStep < 0) {
    throw new UserError("noise.options_invalid", `fromStep must be a whole number ≥ 0, got ${fromStep}`);
  }
  const rollout = String(args.rollout);
  const random = createRandom("noise", args.purpose, args.taskId, rollout, fromStep);
  const schedule: NoiseSchedule = { taskId: args.taskId, rollout, purpose: args.purpose, events: [] };
  const n = fireCount(args.successRate, random);
  const pool = args.generators ?? generatorsOf(args.split);
  if (n === 0 || pool.length === 0) return schedule;

  const lo = Math.max(options.protectedSteps, fromStep);
  const hi = Math.max(...pool.map((g) => lastStepFor(g, options)));
  const used = new Set<string>();
  for (const step of bucketSteps(lo, hi, n, random)) {
    const fits = pool.filter((g) => step <= lastStepFor(g, options) && (g.repeatable || !used.has(g.name)));
    if (fits.length === 0) continue;
    const g = fits[random.int(fits.length)] as NoiseGenerator;
    used.add(g.name);
    schedule.events.push({
      id: `n${step}-${schedule.events.length}`,
      step,
      generator: g.name,
      seed: eventSeed(random),
    });
  }
  return schedule;
}

/**
 * The evaluation schedule of one task: exactly ONE held-out event (purpose "eval", rollout "*").
 * The generator is uniform among the held-out generators whose allowed range
 * [protectedSteps, min(span − 1, horizon − cost − buffer)] is not empty, and the step uniform in that
 * range. When no range is left (a span of 1 with protected steps, say) the event still fires, at step
 * `protectedSteps`: evaluation always has exactly one event. Seeded by
 * `createRandom("noise-eval", seed ?? "0", taskId)`; every evaluated policy shares it (common random
 * numbers), precomputed in a schedule file (see schedule-file.ts).
 */
export function evaluationSchedule(args: {
  taskId: string;
  options?: ScheduleOptionsInput;
  seed?: string;
  generators?: ReadonlyArray<NoiseGenerator>;
}): NoiseSchedule {
  const options = parseScheduleOptions(args.options);
  const pool = args.generators ?? generatorsOf("heldout");
  if (pool.length === 0) {
    throw new UserError("noise.no_generators", "evaluation schedules need at least one held-out generator");
  }
  const random = createRandom("noise-eval", args.seed ?? "0", args.taskId);
  const lo = Math.max(options.protectedSteps, 0);
  const fits = pool.filter((g) => lastStepFor(g, options) >= lo);
  let g: NoiseGenerator;
  let step: number;
  if (fits.length > 0) {
    g = fits[random.int(fits.length)] as NoiseGenerator;
    step = lo + random.int(lastStepFor(g, options) - lo + 1);
  } else {
    g = pool[random.int(pool.length)] as NoiseGenerator;
    step = lo;
  }
  return {
    taskId: args.taskId,
    rollout: "*",
    purpose: "eval",
    events: [{ id: `n${step}-0`, step, generator: g.name, seed: eventSeed(random) }],
  };
}
