import {
  EnvironmentError,
  type Observation,
  type PerturbationStatus,
  type Task,
  UserError,
} from "../../core/index.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { EpisodePage } from "./episode-page.ts";
import {
  agentCall,
  type PageView,
  type SettleReport,
  settledViewExpression,
  viewExpression,
} from "./page-agent.ts";
import type { EpisodePerturbations } from "./perturbations.ts";
import { browserCrashed, pageUnresponsive, WEB_ERROR_CODES, withTimeout } from "./web-errors.ts";

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
  /**
   * The page part of the state fingerprint as read with the latest view of the task page (views
   * read it once the environment fingerprints, EpisodeIO.printWithView), until the page may have
   * changed (the environment drops it on every operation but reads): the fingerprint of the state
   * just observed costs no second evaluation. Absent: read it anew.
   */
  printed?: PagePrint | null;
}

/** What the state fingerprint reads from the task page (FINGERPRINT_EXPRESSION, or a view). */
export interface PagePrint {
  href: string;
  axtree: string;
  focused: string;
  dom: string;
  globals: PageView["globals"];
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
  return withTimeout(ep.handle.evaluate<T>(expression), timeoutMs, "a page evaluation");
}

/** Whether the page answers, is gone (closed, crashed, browser disconnected) or is stuck in a script. */
async function probe(ep: Episode): Promise<"alive" | "gone" | "stuck"> {
  if (ep.handle.dead || browserGone(ep)) return "gone";
  try {
    await withTimeout(ep.handle.page.evaluate("1"), PROBE_MS, "a liveness probe");
    return "alive";
  } catch (error) {
    const timedOut = error instanceof EnvironmentError && error.code === WEB_ERROR_CODES.timeout;
    return timedOut && !ep.handle.dead && !browserGone(ep) ? "stuck" : "gone";
  }
}

const PROBE_MS = 2_000;

/**
 * Runs a browser operation under a deadline and types its failures: a dead browser or page becomes
 * `env.browser_crashed` (and `onCrash` runs once); a page that no longer answers (its main thread
 * blocked, e.g. an endless loop in a click handler) becomes `env.page_unresponsive` and its context
 * is discarded at once; anything else from Playwright `env.browser_error`.
 */
export async function guardIn<T>(
  ep: Episode,
  operation: string,
  fn: () => Promise<T>,
  onCrash: () => void,
  deadlineMs: number,
): Promise<T> {
  try {
    return await withTimeout(fn(), deadlineMs, operation);
  } catch (error) {
    if (error instanceof UserError) throw error;
    if (error instanceof EnvironmentError && error.code !== WEB_ERROR_CODES.timeout) throw error;
    if (ep.handle.unresponsive) throw pageUnresponsive(operation, deadlineMs);
    const state = await probe(ep);
    if (state === "stuck") {
      // The browser and page are there but the page does not answer: it is stuck in a script.
      ep.handle.unresponsive = true;
      await ep.handle.close();
      throw pageUnresponsive(operation, deadlineMs);
    }
    if (state === "gone") {
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

function browserGone(ep: Episode): boolean {
  return ep.handle.page.isClosed() || !ep.handle.context.browser()?.isConnected();
}

/**
 * The page view. With `settle`, first lets the page settle after an action (a navigation, if one
 * started, loads; then until the page is quiet, see page/agent-settle.js; then `settleMs`), in the
 * same evaluation as the view when `settleMs` is 0. With `print`, the view has the fingerprint's
 * DOM dump (see viewExpression).
 */
export async function readView(
  ep: Episode,
  config: WebEnvironmentConfig,
  settle: boolean,
  print: boolean,
): Promise<PageView> {
  // A settle may take up to settle.maxMs on top of the evaluation itself.
  const timeout = config.actionTimeoutMs + (settle ? config.settle.maxMs : 0);
  for (let attempt = 0; ; attempt++) {
    try {
      if (settle && config.settleMs > 0) {
        const report = await evalIn<SettleReport>(ep, agentCall("settle", config.settle), timeout);
        await ep.handle.page.waitForTimeout(config.settleMs);
        return { settle: report, ...(await evalIn<PageView>(ep, viewExpression(print), timeout)) };
      }
      const expression = settle ? settledViewExpression(config.settle, print) : viewExpression(print);
      return await evalIn<PageView>(ep, expression, timeout);
    } catch (error) {
      if (
        attempt >= 3 ||
        !/context was destroyed|execution context|navigat|__rh/i.test((error as Error).message)
      )
        throw error;
      await ep.handle.page.waitForLoadState("load");
    }
  }
}
