import type { BrowserContext, Dialog, Page } from "playwright-core";
import { EnvironmentError } from "../../core/index.ts";
import type { BrowserPool } from "./browser-pool.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import { PAGE_AGENT_SOURCE } from "./page-agent.ts";
import { browserCrashed, WEB_ERROR_CODES, withTimeout } from "./web-errors.ts";

/** One episode's isolated browser context and page. */
export interface EpisodePage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Requests to anything but the task server, blocked. */
  readonly blocked: { count: number; urls: string[] };
  /** Native dialogs (alert/confirm/prompt), accepted automatically; their messages. */
  readonly dialogs: string[];
  /** Set when the page, context or browser died (not by close()). */
  dead: boolean;
  /** Set when the page stopped answering (its main thread blocked); the context is then discarded. */
  unresponsive: boolean;
  /** When set, the next native dialog is held open and handed here instead of accepted (noise). */
  holdDialog: ((dialog: Dialog) => void) | null;
  /** New pages the noise layer is about to open (others are closed as popups). */
  allowPages: number;
  close(): Promise<void>;
}

export interface OpenEpisodeOptions {
  pool: BrowserPool;
  config: WebEnvironmentConfig;
  /** Task server origin; the only origin the page may reach. */
  origin: string;
  entryPath: string;
  seed: number;
}

const MAX_BLOCKED_URLS = 20;
const CLOSE_TIMEOUT_MS = 10_000;

/** Resource types whose failed load makes a task page invalid (a missing script breaks the task). */
const REQUIRED_RESOURCES = new Set(["document", "script", "stylesheet"]);

/**
 * Opens a fresh context + page for a task: fixed viewport, locale and timezone, frozen Date, every
 * foreign request blocked and counted, the page agent and the seed installed before any page
 * script, popups closed, dialogs accepted. Loads the entry page and starts the episode.
 */
export async function openEpisodePage(options: OpenEpisodeOptions): Promise<EpisodePage> {
  const { config, origin } = options;
  const context = await options.pool.newContext({
    viewport: config.viewport,
    screen: config.viewport,
    deviceScaleFactor: 1,
    locale: config.locale,
    timezoneId: config.timezoneId,
    serviceWorkers: "block",
    acceptDownloads: false,
    reducedMotion: "reduce",
    colorScheme: "light",
  });
  let closing = false;
  const state: EpisodePage = {
    context,
    page: undefined as unknown as Page,
    blocked: { count: 0, urls: [] },
    dialogs: [],
    dead: false,
    unresponsive: false,
    holdDialog: null,
    allowPages: 0,
    async close() {
      if (closing) return;
      closing = true;
      context.browser()?.off("disconnected", markDead);
      // Closing a context also ends a renderer stuck in a script; should even that hang, the browser
      // is killed (the pool relaunches it), so that close() always returns.
      await withTimeout(context.close(), CLOSE_TIMEOUT_MS, "closing a browser context").catch(() =>
        options.pool.kill(),
      );
    },
  };
  function markDead(): void {
    if (!closing) state.dead = true;
  }
  const block = (url: string) => {
    state.blocked.count += 1;
    if (state.blocked.urls.length < MAX_BLOCKED_URLS) state.blocked.urls.push(url);
  };
  try {
    context.on("close", markDead);
    context.browser()?.on("disconnected", markDead);
    // Only foreign URLs reach the handler (Playwright matches the pattern before dispatching).
    const foreign = new RegExp(`^(?!${origin.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/)`);
    await context.route(foreign, (route) => {
      block(route.request().url());
      return route.abort("blockedbyclient");
    });
    await context.routeWebSocket(/.*/, (ws) => {
      block(ws.url());
      return ws.close({ code: 1008, reason: "blocked by Rehearsal" });
    });
    if (config.fixedTime !== null) await context.clock.setFixedTime(config.fixedTime);
    await context.addInitScript({
      content: `window.__REHEARSAL__ = Object.freeze({ managed: true, seed: ${JSON.stringify(options.seed)} });`,
    });
    await context.addInitScript({ content: PAGE_AGENT_SOURCE });
    const page = await context.newPage();
    (state as { page: Page }).page = page;
    // What breaks the page while it loads and starts: uncaught script errors, missing files.
    const loadProblems: string[] = [];
    const missingFiles: string[] = [];
    let loading = true;
    page.on("pageerror", (e) => {
      if (loading) loadProblems.push(`an uncaught script error (${scriptErrorText(e)})`);
    });
    page.on("response", (r) => {
      if (loading && r.status() >= 400 && REQUIRED_RESOURCES.has(r.request().resourceType())) {
        const path = r.url().replace(origin, "");
        missingFiles.push(path);
        loadProblems.push(`a missing file ${path} (HTTP ${r.status()})`);
      }
    });
    page.on("requestfailed", (r) => {
      if (loading && r.url().startsWith(origin) && REQUIRED_RESOURCES.has(r.resourceType()))
        loadProblems.push(`a file that failed to load ${r.url().replace(origin, "")}`);
    });
    page.setDefaultTimeout(config.actionTimeoutMs);
    page.on("crash", markDead);
    page.on("close", markDead);
    page.on("dialog", (d) => {
      const hold = state.holdDialog;
      if (hold) {
        state.holdDialog = null;
        hold(d);
        return;
      }
      state.dialogs.push(d.message().slice(0, 200));
      d.accept().catch(() => {});
    });
    context.on("page", (p) => {
      if (p === page) return;
      if (state.allowPages > 0) state.allowPages -= 1;
      else p.close().catch(() => {});
    });
    await page.goto(origin + options.entryPath, { waitUntil: "load", timeout: config.actionTimeoutMs });
    const started = await withTimeout(
      page.evaluate(START_EPISODE(options.seed)) as Promise<{ status: string; utterance: string }>,
      config.actionTimeoutMs,
      `starting the episode of ${options.entryPath}`,
    );
    let utterance = started.utterance;
    if (started.status === "ok") {
      // Not ready at once: genProblem finishes asynchronously.
      await page.waitForFunction("window.WOB_TASK_READY === true", undefined, {
        timeout: config.actionTimeoutMs,
      });
      utterance = await withTimeout(
        page.evaluate("window.__rh.instruction().utterance") as Promise<string>,
        config.actionTimeoutMs,
        `reading the instruction of ${options.entryPath}`,
      );
    }
    if (started.status !== "ok" && started.status !== "ready") loadProblems.unshift(started.status);
    else if (utterance === "")
      loadProblems.push("an empty instruction after genProblem() (#query has no text)");
    loading = false;
    if (loadProblems.length > 0) {
      throw new EnvironmentError(
        WEB_ERROR_CODES.taskPageInvalid,
        `task page ${options.entryPath} did not start a valid episode: it has ${loadProblems.join("; ")}. ` +
          invalidPageFix(options.entryPath, missingFiles),
        { details: { entryPath: options.entryPath, problems: loadProblems, missingFiles } },
      );
    }
    return state;
  } catch (error) {
    const dead = state.dead || !context.browser()?.isConnected();
    await state.close();
    if (error instanceof EnvironmentError) throw error;
    if (dead) throw browserCrashed(`reset of ${options.entryPath}`, error);
    throw new EnvironmentError(
      WEB_ERROR_CODES.taskPageInvalid,
      `could not load task page ${options.entryPath}: ${(error as Error).message.split("\n")[0]}`,
      { cause: error },
    );
  }
}

/**
 * Starts the episode in the loaded page: `status` "ready" (with the instruction), "ok" (not ready
 * yet), or what is missing.
 */
const START_EPISODE = (seed: number) => `(() => {
  if (!window.core || typeof window.core.startEpisodeReal !== "function")
    return { status: "no core.startEpisodeReal (core.js not loaded)", utterance: "" };
  if (typeof window.genProblem !== "function") return { status: "no genProblem() function", utterance: "" };
  if (typeof Math.seedrandom === "function") Math.seedrandom(${JSON.stringify(seed)});
  window.core.EPISODE_MAX_TIME = Infinity;
  try {
    window.core.startEpisodeReal();
  } catch (e) {
    const text = e instanceof Error ? e.name + ": " + e.message : String(e);
    return { status: "an error thrown while starting the episode (genProblem): " + text, utterance: "" };
  }
  if (window.WOB_TASK_READY !== true) return { status: "ok", utterance: "" };
  return { status: "ready", utterance: window.__rh.instruction().utterance };
})()`;

/** The mount a task server path lies in: `/tasks/` or `/suites/<name>/` (see suite.ts). */
function mountOf(path: string): string {
  return /^\/(?:suites\/[^/]+|tasks)\//.exec(path)?.[0] ?? "/";
}

/**
 * How to fix an invalid page. A missing file outside the suite's served folder (a page loading
 * `../../core/...` above it) needs a served root higher up, not an edit of the page.
 */
function invalidPageFix(entryPath: string, missingFiles: ReadonlyArray<string>): string {
  const mount = mountOf(entryPath);
  const outside = missingFiles.filter((p) => !p.startsWith(mount) && !/^\/core\/[^/]+$/.test(p));
  const general =
    "Include /core/core.js, define genProblem() and fill #query with the instruction (PROTOCOL.md).";
  if (outside.length === 0) return general;
  return (
    `${outside.join(", ")} lies outside the served folder ${mount}: serve the tasks folder's parent ` +
    "(the default when core/ or common/ lies beside the tasks folder) or a folder above it with " +
    `--tasks-root DIR (the web option tasksRoot). ${general}`
  );
}

/** The first line of an uncaught page error, with the script and line it came from when known. */
function scriptErrorText(error: Error): string {
  const at = /(?:https?:\/\/[^/\s]+)(\/[^\s):]+:\d+)/.exec(error.stack ?? "");
  return `${error.message.split("\n")[0]}${at ? ` at ${at[1]}` : ""}`;
}
