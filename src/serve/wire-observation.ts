import type { Observation, VerifierResult } from "../core/index.ts";
import type { ObservationPayload } from "./schemas.ts";

/** What the answer says about the transition (a reset or restore: no reward, nothing ended). */
export interface WireTransition {
  reward: number | null;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
  /** The verifier's verdict, on the step that ends the episode. */
  outcome?: VerifierResult;
}

export const NO_TRANSITION: WireTransition = { reward: null, terminated: false, truncated: false, info: {} };

/**
 * An observation as it goes on the wire (OpenEnv's shape): Rehearsal's observation with `done`,
 * `reward` and `metadata` inside and beside it; screenshots travel as `{mime, sha256}` without bytes.
 */
export function observationPayload(
  ids: { session_id: string; episode_id: string; task_id: string; step_count: number },
  shown: Observation,
  t: WireTransition,
  episodeDone: boolean,
): ObservationPayload {
  const done = t.terminated || t.truncated || episodeDone;
  const metadata: ObservationPayload["metadata"] = {
    ...ids,
    terminated: t.terminated,
    truncated: t.truncated,
    info: t.info,
  };
  if (t.outcome)
    metadata.outcome = { success: t.outcome.success, reward: t.outcome.reward, reason: t.outcome.reason };
  const { screenshot, ...rest } = shown;
  const observation: ObservationPayload["observation"] = { ...rest, done, reward: t.reward, metadata };
  if (screenshot) observation.screenshot = { mime: screenshot.mime, sha256: screenshot.sha256 };
  return { observation, reward: t.reward, done, metadata };
}
