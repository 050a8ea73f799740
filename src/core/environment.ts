import { z } from "zod";
import type { Action } from "./action.ts";
import type { Observation } from "./observation.ts";
import type { TaskSuite } from "./task.ts";
import type { VerifierResult } from "./verifier.ts";

/**
 * What an environment promises:
 * - `snapshot`: `snapshot()`/`restore()` save and restore the exact state (including random state);
 * - `replay`: `reset` with the same task and seed followed by the same actions reaches the same state
 *   (checked through `fingerprint()`);
 * - `deterministic`: the same seed and actions always give the same observations.
 */
export const CapabilitiesSchema = z.object({
  snapshot: z.boolean(),
  replay: z.boolean(),
  deterministic: z.boolean(),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

export const ResetOptionsSchema = z.object({
  taskId: z.string().min(1),
  seed: z.number().int().nonnegative(),
  /**
   * The caller's step limit for this episode (a runner's `--max-steps`): an environment that truncates
   * by its own horizon uses this one instead, so that both stop at the same step. Others ignore it.
   */
  maxSteps: z.number().int().positive().optional(),
});
export type ResetOptions = z.infer<typeof ResetOptionsSchema>;

export interface StepResult {
  /** What the policy sees next. An action that could not apply sets `observation.error`. */
  observation: Observation;
  /** Reward of this transition (environments with terminal rewards give it on the final step). */
  reward: number;
  /** The episode ended by the task's own logic (goal, hole, done/fail, checkmate). */
  terminated: boolean;
  /** The episode was cut by a limit (horizon). */
  truncated: boolean;
  /** Environment-specific facts about the transition (e.g. hole-fall probabilities, slip outcome). */
  info: Record<string, unknown>;
}

/** An opaque, JSON-serialisable saved state. Only the environment that made it can restore it. */
export const EnvironmentSnapshotSchema = z.object({
  family: z.string(),
  taskId: z.string(),
  seed: z.number().int(),
  state: z.unknown(),
});
export type EnvironmentSnapshot = z.infer<typeof EnvironmentSnapshotSchema>;

/**
 * The environment contract. Lifecycle: `reset` → `step`* → (`reset` again | `close`).
 * - An action that cannot apply is data: the observation carries `error`, the episode goes on, and the
 *   step counts toward the horizon.
 * - Stepping after the episode ended returns the final observation with error code `episode_ended`.
 * - Infrastructure failures (crashed browser, dead engine) throw `EnvironmentError`; never a reward.
 * - `close()` is idempotent.
 */
export interface Environment {
  readonly family: string;
  readonly capabilities: Capabilities;
  readonly suite: TaskSuite;
  reset(options: ResetOptions): Promise<Observation>;
  /**
   * An environment whose step never waits (FrozenLake) makes it with `withSyncTwin`: `step.sync` is
   * the same step without a promise, which the rollout loop calls (two promise turns a step saved).
   */
  step(action: Action): Promise<StepResult>;
  /** Scores the current episode state with the task's verifier. */
  evaluate(): Promise<VerifierResult>;
  /** A digest of the current state: equal digests mean equal states (used to check replays). */
  fingerprint(): Promise<string>;
  /** Present when `capabilities.snapshot`. */
  snapshot?(): Promise<EnvironmentSnapshot>;
  /** Present when `capabilities.snapshot`; returns the observation of the restored state. */
  restore?(snapshot: EnvironmentSnapshot): Promise<Observation>;
  /** The task's own solver: the next action from the current state, or null when it has none. */
  oracleAction?(): Promise<Action | null>;
  close(): Promise<void>;
}

/**
 * The code of the `EnvironmentError` that `snapshot()` throws for a task whose state cannot be saved
 * exactly (an environment may declare `snapshot` and still lack it for some tasks). Callers fall back
 * to deterministic replay.
 */
export const SNAPSHOT_UNSUPPORTED = "env.snapshot_unsupported";

/** Builds environments of one family; a pool or search creates several. */
export type EnvironmentFactory = () => Promise<Environment>;
