import { EnvironmentError, SNAPSHOT_UNSUPPORTED } from "../../core/index.ts";

/** Codes of the web environment's typed infrastructure errors. */
export const WEB_ERROR_CODES = {
  browserCrashed: "env.browser_crashed",
  timeout: "env.timeout",
  browserError: "env.browser_error",
  taskPageInvalid: "env.task_page_invalid",
  snapshotUnsupported: SNAPSHOT_UNSUPPORTED,
  replayMismatch: "env.replay_mismatch",
  notReset: "env.not_reset",
  closed: "env.closed",
  oracleInvalid: "env.oracle_invalid",
  pageUnresponsive: "env.page_unresponsive",
  rewardOutOfRange: "env.reward_out_of_range",
} as const;

/** Raw rewards a task page may report (MiniWoB: 1 success, (0, 1) partial, down to -1 failure). */
export const RAW_REWARD_RANGE = { min: -1, max: 1 } as const;

export function browserCrashed(operation: string, cause?: unknown): EnvironmentError {
  const detail = cause instanceof Error ? `: ${cause.message.split("\n")[0]}` : "";
  return new EnvironmentError(
    WEB_ERROR_CODES.browserCrashed,
    `the browser or page died during ${operation}${detail}. The episode is lost (not a reward); ` +
      "reset starts a new one in a relaunched browser.",
    { cause },
  );
}

/** The page's main thread stopped answering (a handler that never returns); its context was discarded. */
export function pageUnresponsive(operation: string, ms: number): EnvironmentError {
  return new EnvironmentError(
    WEB_ERROR_CODES.pageUnresponsive,
    `the task page stopped answering during ${operation} (no reply within ${ms} ms: a script blocks its ` +
      "main thread, e.g. an endless loop in an event handler). The episode is lost (not a reward) and its " +
      "browser context was discarded; fix the task page, or raise actionTimeoutMs if it is only slow.",
    { details: { operation, deadlineMs: ms } },
  );
}

/** A finished page reported a raw reward outside RAW_REWARD_RANGE: never recorded as a reward. */
export function rewardOutOfRange(taskId: string, raw: number): EnvironmentError {
  return new EnvironmentError(
    WEB_ERROR_CODES.rewardOutOfRange,
    `task page ${taskId} reported reward ${raw}, outside [${RAW_REWARD_RANGE.min}, ${RAW_REWARD_RANGE.max}] ` +
      "(PROTOCOL.md: 1 is success, values below are partial or failure); fix the page's core.endEpisode call.",
    { details: { taskId, rawReward: raw } },
  );
}

export function timedOut(operation: string, ms: number, cause?: unknown): EnvironmentError {
  return new EnvironmentError(
    WEB_ERROR_CODES.timeout,
    `${operation} did not finish within ${ms} ms; the page may be hung. Reset to start a new episode, ` +
      "or raise actionTimeoutMs.",
    { cause },
  );
}

/** A replayed prefix reached a state whose fingerprint differs from the recorded one. */
export class ReplayMismatchError extends EnvironmentError {
  readonly expected: string;
  readonly actual: string;
  /** The fingerprint parts that differ, or null when the recorded parts were not known. */
  readonly changedParts: string[] | null;

  constructor(args: {
    taskId: string;
    seed: number;
    prefixLength: number;
    expected: string;
    actual: string;
    /** The fingerprint parts that differ (url, axtree, focused, dom, globals, ...), when known. */
    changedParts?: string[];
  }) {
    const changed = args.changedParts?.length ? ` (changed: ${args.changedParts.join(", ")})` : "";
    super(
      WEB_ERROR_CODES.replayMismatch,
      `replaying ${args.prefixLength} actions of task ${args.taskId} (seed ${args.seed}) reached state ` +
        `${args.actual.slice(0, 12)}${changed}, not the recorded ${args.expected.slice(0, 12)}: the task page is not ` +
        "deterministic (time, crypto, timers) or the prefix differs. Drop or re-root this branch.",
      { details: { ...args } },
    );
    this.expected = args.expected;
    this.actual = args.actual;
    this.changedParts = args.changedParts ?? null;
  }
}

/** Resolves with the promise, or rejects with `env.timeout` after `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, operation: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(operation, ms)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
