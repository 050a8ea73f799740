import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The browser-side agent (page/agent-settle.js, the settle tracker `window.__rhSettle`, which wraps
 * the page's timers, frames and requests; page/agent.js, page/agent-capture.js (the caret hidden
 * around a screenshot), then page/agent-snapshot.js, which publishes `window.__rh`, then
 * page/noise.js, the noise layer `window.__rhNoise`), installed into every page before its scripts.
 */
export const PAGE_AGENT_SOURCE: string = [
  "miniwob-compat.js",
  "agent-settle.js",
  "agent.js",
  "agent-capture.js",
  "agent-snapshot.js",
  "noise.js",
]
  .map((file) => readFileSync(join(here, "page", file), "utf8"))
  .join("\n;\n");

/** A call to the page agent as an expression string: `window.__rh.name(...args)`. */
export function agentCall(name: string, ...args: ReadonlyArray<unknown>): string {
  return `window.__rh.${name}(${args.map((a) => JSON.stringify(a) ?? "undefined").join(", ")})`;
}

/** What the agent reports about the task globals (see agent.js `globals`). */
export interface PageGlobals {
  done: boolean;
  rawReward: number;
  /** WOB_REWARD_GLOBAL: time-dependent, kept out of fingerprints. */
  reward: number;
  reason: string | null;
  ready: boolean;
  rng: number | null;
  verifier: unknown;
}

/** How a step's settle ended (agent-settle.js): quiet after `ms`, or cut at the cap with what was pending. */
export interface SettleReport {
  timedOut: boolean;
  ms: number;
  /** The animation frames the settle waited for (0: nothing had changed since the last quiet settle). */
  frames: number;
  pending?: { timers: number; frames: number; requests: number; animations: number; mutated: boolean };
}

/** The settle's limits as the page agent takes them (config `settle`). */
export interface SettleLimits {
  horizonMs: number;
  maxMs: number;
}

export interface PageView {
  /** Set when the view was read after a settle. */
  settle?: SettleReport;
  axtree: string;
  focused: string;
  href: string;
  title: string;
  instruction: { utterance: string; fields: Record<string, string> | null };
  globals: PageGlobals;
  /**
   * The DOM dump the state fingerprint hashes (agent.js `domDigestSource`), read in the same
   * evaluation as the rest of the view once the environment fingerprints (`viewExpression`); absent
   * before, and in a view of a noise tab.
   */
  dom?: string;
}

const viewOf = (print: boolean) => `(() => ({
  axtree: window.__rh.axtree(),
  focused: window.__rh.focused(),${print ? "\n  dom: window.__rh.domDigestSource()," : ""}
  href: location.href,
  title: document.title,
  instruction: window.__rh.instruction(),
  globals: window.__rh.globals(),
}))()`;
const VIEW = viewOf(false);
const VIEW_WITH_PRINT = viewOf(true);

/**
 * One evaluation that gathers everything an observation needs. With `print`, also the DOM dump of
 * the state fingerprint (read after the axtree, as FINGERPRINT_EXPRESSION reads it), so that the
 * fingerprint of the state just observed needs no second round trip (see EpisodeIO.pageFingerprint);
 * without it (an environment that never fingerprints: a plain run), the dump is not built.
 */
export function viewExpression(print: boolean): string {
  return print ? VIEW_WITH_PRINT : VIEW;
}

/**
 * Settles the page after an action (see agent-settle.js), then returns the view (with the DOM dump
 * when `print`, see viewExpression) and the settle's report: one evaluation, one round trip.
 */
export function settledViewExpression(limits: SettleLimits, print: boolean): string {
  return `(async () => { const settle = await ${agentCall("settle", limits)}; return { settle, ...${viewExpression(print)} }; })()`;
}

/** Everything the state fingerprint hashes. */
export const FINGERPRINT_EXPRESSION = `(() => ({
  href: location.href,
  axtree: window.__rh.axtree(),
  focused: window.__rh.focused(),
  dom: window.__rh.domDigestSource(),
  globals: window.__rh.globals(),
}))()`;
