import type { Action, Environment, Observation } from "../../core/index.ts";
import { changedParts, fingerprintWithDigests, type PartDigests } from "./fingerprint-diff.ts";
import { ReplayMismatchError } from "./web-errors.ts";

export interface ReplayOptions {
  taskId: string;
  seed: number;
  prefix: ReadonlyArray<Action>;
  /** The fingerprint recorded when the prefix was first executed; compared after the replay. */
  expectedFingerprint?: string;
  /**
   * The part digests of the expected fingerprint (fingerprint-diff.ts): with them a mismatch names
   * the parts that changed (url, axtree, focused, dom, globals, ...).
   */
  expectedParts?: PartDigests;
  /** "throw" (default): a mismatch throws ReplayMismatchError; "report": it is returned in the outcome. */
  onMismatch?: "throw" | "report";
}

export interface ReplayOutcome {
  observation: Observation;
  fingerprint: string;
  /** Actions stepped by this replay. */
  replayedSteps: number;
  /** The replayed prefix ended the episode. */
  ended: boolean;
  /** Set (with onMismatch "report") when the reached state differs from the expected one. */
  mismatch: ReplayMismatchError | null;
}

/** Steps `actions` on an environment that is already at some state; returns the last observation. */
export async function stepAll(
  env: Environment,
  actions: ReadonlyArray<Action>,
  start: Observation | null,
): Promise<{ observation: Observation | null; ended: boolean }> {
  let observation = start;
  let ended = false;
  for (const action of actions) {
    const r = await env.step(action);
    observation = r.observation;
    ended = r.terminated || r.truncated;
  }
  return { observation, ended };
}

/**
 * Checks a reached fingerprint against the expected one: null, a mismatch error, or a throw. With
 * the expected and the reached part digests, the error names the parts that changed.
 */
export function checkReplay(
  options: Pick<ReplayOptions, "taskId" | "seed" | "expectedFingerprint" | "expectedParts" | "onMismatch">,
  prefixLength: number,
  actual: string,
  actualParts?: PartDigests,
): ReplayMismatchError | null {
  if (options.expectedFingerprint === undefined || options.expectedFingerprint === actual) return null;
  const error = new ReplayMismatchError({
    taskId: options.taskId,
    seed: options.seed,
    prefixLength,
    expected: options.expectedFingerprint,
    actual,
    ...(options.expectedParts && actualParts
      ? { changedParts: changedParts(options.expectedParts, actualParts) }
      : {}),
  });
  if ((options.onMismatch ?? "throw") === "throw") throw error;
  return error;
}

/** An environment that can tell what its fingerprint hashes (the web environment). */
interface WithParts {
  fingerprintParts(): Promise<Record<string, unknown>>;
}

/** The reached fingerprint, with its part digests where the environment exposes its parts. */
export async function reachedState(env: Environment): Promise<{ fingerprint: string; parts?: PartDigests }> {
  const withParts = env as Environment & Partial<WithParts>;
  if (typeof withParts.fingerprintParts !== "function") return { fingerprint: await env.fingerprint() };
  const parts = await withParts.fingerprintParts();
  const { print, digests } = fingerprintWithDigests(parts);
  return { fingerprint: print, parts: digests };
}

/** Deterministic reset + action prefix, then the fingerprint check (never silently ignored). */
export async function replayPrefix(env: Environment, options: ReplayOptions): Promise<ReplayOutcome> {
  const first = await env.reset({ taskId: options.taskId, seed: options.seed });
  const { observation, ended } = await stepAll(env, options.prefix, first);
  const { fingerprint, parts } = await reachedState(env);
  const mismatch = checkReplay(options, options.prefix.length, fingerprint, parts);
  return {
    observation: observation ?? first,
    fingerprint,
    replayedSteps: options.prefix.length,
    ended,
    mismatch,
  };
}
