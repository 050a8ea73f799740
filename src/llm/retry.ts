import type { Random } from "../core/random.ts";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A real sleep (setTimeout); tests inject their own. Rejects with the signal's reason when aborted. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Exponential backoff with "equal jitter": half of `base * 2^attempt` (capped) is fixed, the other half
 * is drawn from `random`. `attempt` counts from 0 (the delay before the first retry).
 */
export function backoffDelayMs(attempt: number, random: Random, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random.next() * ceiling) / 2);
}

/** Longest server-requested wait we honour. */
export const MAX_RETRY_AFTER_MS = 120_000;

/**
 * The wait a server asked for, from `retry-after-ms` (milliseconds) or `retry-after` (seconds or an
 * HTTP date, measured against `nowMs`). Undefined when absent or unreadable.
 */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  nowMs: number,
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0)
    return Math.min(Number(ms), MAX_RETRY_AFTER_MS);
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}
