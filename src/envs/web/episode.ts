import {
  EnvironmentError,
  type Observation,
  type PerturbationStatus,
  type Task,
  UserError,
} from "../../core/index.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { EpisodePage } from "./episode-page.ts";
import { agentCall, type PageView, SETTLED_VIEW_EXPRESSION, VIEW_EXPRESSION } from "./page-agent.ts";
import type { EpisodePerturbations } from "./perturbations.ts";
import { browserCrashed, WEB_ERROR_CODES, withTimeout } from "./web-errors.ts";

/** Why an episode ended: the page finished, the agent said done/fail, or the step limit. */
export type EndReason = "page" | "done" | "fail" | "truncated";

/** The live state of one web episode. */
export interface Episode {
  task: Task;
  seed: number;
  handle: EpisodePage;
  steps: number;
  ended: EndReason | null;
  last: Observation | null;
  /** Perturbations of this episode (created by the first one applied). */
  noise: EpisodePerturbations | null;
  /** The state read just before a native dialog blocked the page (the page cannot change meanwhile). */
  frozen: FrozenState | null;
}

/** What cannot be read from a page while a native dialog blocks it, read just before it opened. */
export interface FrozenState {
  view: PageView;
  fingerprint: Record<string, unknown>;
  saved: { supported: boolean; href: string; page?: unknown; extra?: unknown };
  layer: unknown;
  layerStatus: PerturbationStatus[];
  verifier: string;
  /** The page's pixels under the dialog. */
  screenshot: Uint8Array | null;
}

/** Evaluates an expression in the episode's page, with a time limit (page.evaluate has none). */
export function evalIn<T>(ep: Episode, expression: string, timeoutMs: number): Promise<T> {
  return withTimeout(ep.handle.page.evaluate(expression) as Promise<T>, timeoutMs, "a page evaluation");
}

/** Whether the page still answers (a closed page or disconnected browser does not). */
export async function isAlive(ep: Episode): Promise<boolean> {
  if (ep.handle.page.isClosed() || !ep.handle.context.browser()?.isConnected()) return false;
  try {
    await withTimeout(ep.handle.page.evaluate("1"), 2_000, "a liveness probe");
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a browser operation and types its failures: a dead browser or page becomes
 * `env.browser_crashed` (and `onCrash` runs once), anything else from Playwright `env.browser_error`.
 */
export async function guardIn<T>(
  ep: Episode,
  operation: string,
  fn: () => Promise<T>,
  onCrash: () => void,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof UserError) throw error;
    if (error instanceof EnvironmentError && error.code !== WEB_ERROR_CODES.timeout) throw error;
    if (ep.handle.dead || !(await isAlive(ep))) {
      if (!ep.handle.dead) onCrash();
      ep.handle.dead = true;
      throw browserCrashed(operation, error);
    }
    if (error instanceof EnvironmentError) throw error;
    throw new EnvironmentError(
      WEB_ERROR_CODES.browserError,
      `${operation} failed in the browser: ${(error as Error).message.split("\n")[0]}`,
      { cause: error },
    );
  }
}

/**
 * The page view. With `settle`, first lets the page settle after an action (a navigation, if one
 * started, loads; then one animation frame and a macrotask; then `settleMs`), in the same
 * evaluation as the view when `settleMs` is 0.
 */
export async function readView(
  ep: Episode,
  config: WebEnvironmentConfig,
  settle: boolean,
): Promise<PageView> {
  const timeout = config.actionTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      if (settle && config.settleMs > 0) {
        await evalIn(ep, agentCall("settle"), timeout);
        await ep.handle.page.waitForTimeout(config.settleMs);
        return await evalIn<PageView>(ep, VIEW_EXPRESSION, timeout);
      }
      return await evalIn<PageView>(ep, settle ? SETTLED_VIEW_EXPRESSION : VIEW_EXPRESSION, timeout);
    } catch (error) {
      if (attempt >= 3 || !/context was destroyed|navigat|__rh/i.test((error as Error).message)) throw error;
      await ep.handle.page.waitForLoadState("load");
    }
  }
}
