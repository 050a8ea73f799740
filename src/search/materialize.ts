import type { Action, Environment, EnvironmentSnapshot, Observation } from "../core/index.ts";

export type ReachResult =
  | { ok: true; observation: Observation; via: "snapshot" | "replay" | "reset" }
  | {
      ok: false;
      reason: "replay_mismatch";
      expected: string;
      actual: string;
      via: "snapshot" | "replay" | "reset";
    };

/**
 * Brings `env` to the state reached by `prefix` from `reset({taskId, seed})`: by restoring a snapshot
 * when one is given and the environment supports it, else by deterministic reset + replay. The state
 * fingerprint must equal `expectedFingerprint` (recorded when the prefix first ran); a mismatch is
 * returned, never ignored.
 */
export async function reachState(
  env: Environment,
  target: {
    taskId: string;
    seed: number;
    prefix: ReadonlyArray<Action>;
    expectedFingerprint?: string;
    snapshot?: EnvironmentSnapshot;
  },
): Promise<ReachResult> {
  let observation: Observation;
  let via: "snapshot" | "replay" | "reset";
  if (target.snapshot && env.capabilities.snapshot && env.restore) {
    observation = await env.restore(target.snapshot);
    via = "snapshot";
  } else {
    observation = await env.reset({ taskId: target.taskId, seed: target.seed });
    for (const action of target.prefix) observation = (await env.step(action)).observation;
    via = target.prefix.length === 0 ? "reset" : "replay";
  }
  if (target.expectedFingerprint !== undefined) {
    const actual = await env.fingerprint();
    if (actual !== target.expectedFingerprint)
      return { ok: false, reason: "replay_mismatch", expected: target.expectedFingerprint, actual, via };
  }
  return { ok: true, observation, via };
}
