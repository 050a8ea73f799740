import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { DETERMINISTIC_DYNAMICS, GYMNASIUM_SLIPPERY_DYNAMICS, type SlipDynamics } from "./dynamics.ts";
import { FrozenLakeSuiteOptionsSchema } from "./suite-options.ts";

/** Gymnasium's `max_episode_steps` for `FrozenLake-v1`. */
export const DEFAULT_HORIZON = 100;

const Probability = z.number().min(0).max(1);
const SUM_TOLERANCE = 1e-9;

/**
 * FrozenLake environment config. The slip model, when `slippery` (the default):
 * - `successRate` (default 1/3): probability of moving in the intended direction;
 * - the rest goes to the two perpendicular directions (left/right as seen facing the intended
 *   direction; never backwards), split by `slipRatio: [left, right]` (default [1, 1], symmetric),
 * - or, instead of `slipRatio`, `perpendicular: {left, right}` as absolute probabilities; then
 *   `successRate` defaults to 1 - left - right and, when given, must match it.
 * The SKL paper's tweak P = (0, 2/3) is `{ perpendicular: { left: 0, right: 2/3 } }`, equivalently
 * `{ successRate: 1/3, slipRatio: [0, 1] }`.
 */
export const FrozenLakeConfigSchema = z
  .object({
    slippery: z.boolean().default(true),
    successRate: Probability.optional(),
    slipRatio: z.tuple([z.number().min(0).finite(), z.number().min(0).finite()]).optional(),
    perpendicular: z.object({ left: Probability, right: Probability }).strict().optional(),
    /**
     * Steps per episode before truncation: 100, Gymnasium's `FrozenLake-v1` limit (whichever map; its
     * separate `FrozenLake8x8-v1` id uses 200). A task's `maxSteps` overrides it, and a `maxSteps` given
     * to `reset` (a runner's `--max-steps`) overrides both.
     */
    horizon: z.number().int().positive().max(100_000).default(DEFAULT_HORIZON),
    /** Adds the `Position (row, col): (r, c)` line to the text observation. */
    showCoordinates: z.boolean().default(true),
    /** Which maps the built-in suite holds (ignored when a suite is passed to the factory). */
    suite: FrozenLakeSuiteOptionsSchema.optional(),
  })
  .strict();
export type FrozenLakeConfigInput = z.input<typeof FrozenLakeConfigSchema>;
export type FrozenLakeConfigParsed = z.output<typeof FrozenLakeConfigSchema>;

export interface FrozenLakeConfig
  extends Omit<FrozenLakeConfigParsed, "successRate" | "slipRatio" | "perpendicular"> {
  /** The resolved slip model (deterministic when not slippery). */
  dynamics: SlipDynamics;
}

function badConfig(message: string, cause?: unknown): UserError {
  return new UserError("frozenlake.bad_config", `FrozenLake config is invalid: ${message}`, {
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Resolves the slip fields into absolute probabilities; throws a UserError when they do not add up. */
export function resolveDynamics(config: {
  slippery?: boolean | undefined;
  successRate?: number | undefined;
  slipRatio?: readonly [number, number] | undefined;
  perpendicular?: { left: number; right: number } | undefined;
}): SlipDynamics {
  if (config.slippery === false) {
    if (config.successRate !== undefined || config.slipRatio || config.perpendicular) {
      throw badConfig("successRate, slipRatio and perpendicular only apply when slippery is true.");
    }
    return { ...DETERMINISTIC_DYNAMICS };
  }
  if (config.perpendicular) {
    if (config.slipRatio) throw badConfig("give either slipRatio or perpendicular, not both.");
    const { left, right } = config.perpendicular;
    const intended = 1 - left - right;
    if (intended < -SUM_TOLERANCE) {
      throw badConfig(`perpendicular left + right = ${left + right} exceeds 1.`);
    }
    if (config.successRate !== undefined && Math.abs(config.successRate - intended) > SUM_TOLERANCE) {
      throw badConfig(
        `successRate ${config.successRate} + perpendicular left ${left} + right ${right} must sum to 1.`,
      );
    }
    return { intended: Math.max(0, intended), left, right };
  }
  if (config.successRate === undefined && config.slipRatio === undefined) {
    return { ...GYMNASIUM_SLIPPERY_DYNAMICS };
  }
  const intended = config.successRate ?? 1 / 3;
  const [l, r] = config.slipRatio ?? [1, 1];
  const rest = 1 - intended;
  if (rest > 0 && l + r <= 0) {
    throw badConfig(`slipRatio [${l}, ${r}] needs a positive side while successRate ${intended} < 1.`);
  }
  if (rest <= 0) return { intended: 1, left: 0, right: 0 };
  return { intended, left: (rest * l) / (l + r), right: (rest * r) / (l + r) };
}

/** Validates a config (strict) and resolves its dynamics; throws a UserError naming each problem. */
export function parseFrozenLakeConfig(input: unknown = {}): FrozenLakeConfig {
  const parsed = FrozenLakeConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw badConfig(`${issues.join("; ")}.`, parsed.error);
  }
  const { successRate, slipRatio, perpendicular, ...rest } = parsed.data;
  const dynamics = resolveDynamics({ slippery: rest.slippery, successRate, slipRatio, perpendicular });
  return { ...rest, dynamics };
}
