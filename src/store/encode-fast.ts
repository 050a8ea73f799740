import type { NewTrajectory, TrajectoryEnd } from "./contract.ts";
import { recordText } from "./step-text.ts";

/*
 * Hand checks for the per-episode records (a trajectory's start and end), run before their schemas:
 * each accepts only values the schema accepts unchanged, and gives the very text the schema path
 * stores. Anything else (undefined back) takes the schema path, with its errors.
 */

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** The stored `meta` text of a valid new trajectory, or undefined (then the schema decides). */
export function fastTrajectoryMeta(t: NewTrajectory): string | undefined {
  if (t === null || typeof t !== "object") return undefined;
  if (!isString(t.id) || t.id.length === 0 || !isString(t.runId) || !isString(t.taskId)) return undefined;
  if (!isString(t.policy) || !isCount(t.episodeIndex) || !isCount(t.seed)) return undefined;
  if (!Number.isFinite(t.startedAtMs)) return undefined;
  return t.meta === undefined ? "{}" : recordText(t.meta);
}

/** `{"reward":..,"success":..,"reason":..,"metrics":{..}}` in the schema's key order, or undefined. */
function outcomeText(outcome: TrajectoryEnd["outcome"]): string | undefined {
  if (outcome === null || typeof outcome !== "object") return undefined;
  const { reward, success, reason, metrics } = outcome;
  if (!Number.isFinite(reward) || typeof success !== "boolean" || !isString(reason)) return undefined;
  let metricsText = "{}";
  if (metrics !== undefined) {
    const text = recordText(metrics);
    if (text === undefined || !Object.values(metrics).every((v) => Number.isFinite(v))) return undefined;
    metricsText = text;
  }
  return `{"reward":${reward},"success":${success},"reason":${JSON.stringify(reason)},"metrics":${metricsText}}`;
}

function errorText(error: TrajectoryEnd["error"]): string | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const { code, category, message } = error;
  if (!isString(code) || !isString(category) || !isString(message)) return undefined;
  return JSON.stringify({ code, category, message });
}

const END_STATUSES: ReadonlySet<unknown> = new Set(["complete", "infra_failed", "aborted"]);

/** The stored texts of a valid end's outcome and error (null when absent), or undefined. */
export function fastEndTexts(
  end: TrajectoryEnd,
): { outcome: string | null; error: string | null } | undefined {
  if (end === null || typeof end !== "object") return undefined;
  if (!END_STATUSES.has(end.status) || !Number.isFinite(end.endedAtMs)) return undefined;
  const outcome = end.outcome === undefined ? null : outcomeText(end.outcome);
  const error = end.error === undefined ? null : errorText(end.error);
  if (outcome === undefined || error === undefined) return undefined;
  return { outcome, error };
}
