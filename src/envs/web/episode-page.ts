import type { BrowserContext, CDPSession, Dialog, Disposable, Page } from "playwright-core";
import { EnvironmentError } from "../../core/index.ts";
import { playwrightMoveAndWheel } from "./actions.ts";
import type { BrowserPool } from "./browser-pool.ts";
import { cdpEvaluate } from "./cdp-evaluate.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import { LoadWatch, loadAndStartEpisode } from "./episode-start.ts";
import { PAGE_AGENT_SOURCE } from "./page-agent.ts";
import { captureViewport } from "./page-capture.ts";
import { blockingProxy, countBlockedTraffic } from "./request-block.ts";
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
  /**
   * Starts a new episode in this context and page as a fresh context would start it, without a new
   * renderer: other pages closed, the origin's storage cleared (cookies, local and session storage,
   * IndexedDB, window.name), the seed replaced, the viewport back to the configured one when
   * `resetViewport`, the history reset to two entries as a new page's (see probePrevious), the entry
   * page loaded and started. On failure
   * the context is closed and the error thrown (the caller then opens a fresh one).
   */
  restart(target: { entryPath: string; seed: number; resetViewport: boolean }): Promise<void>;
  /** Evaluates an expression in the page's main world (one protocol call, see cdp-evaluate.ts). */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the page's viewport, caret hidden (see page-capture.ts). */
  screenshot(): Promise<Uint8Array>;
  /**
   * The pointer moves to (x, y) and the wheel turns there by (deltaX, deltaY): both input events are
   * sent at once over the page's CDP session, in this order, and both answers awaited. Chromium
   * delivers a lone pointer move only with the next frame, so a move awaited before the wheel cost a
   * frame of its own; sent together, the two are delivered in one.
   */
  moveAndWheel(x: number, y: number, deltaX: number, deltaY: number): Promise<void>;
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

/** The seed, readable by page scripts (core.js seeds Math.random from it) before any of them runs. */
const seedScript = (seed: number) =>
  `window.__REHEARSAL__ = Object.freeze({ managed: true, seed: ${JSON.stringify(seed)} });`;

/**
 * Run at the start of the first document of a restarted episode only (removed once it loaded):
 * what a previous episode's page may have left in this tab and origin and a fresh context lacks.
 * Cookies the restart's probe saw are gone already (Storage.clearDataForOrigin); the cookie loop is
 * for those the previous page's scripts set after the probe (its document lives until the next one
 * commits), which nothing else clears.
 */
const FRESH_TAB_SCRIPT = `(() => {
  if (window !== window.top) return;
  try { sessionStorage.clear(); } catch {}
  try { localStorage.clear(); } catch {}
  for (const c of document.cookie.split(";")) {
    const name = c.split("=")[0].trim();
    if (name) document.cookie = name + "=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/";
  }
  window.name = "";
})();`;

/** How long the previous episode's page may take to answer before a restart gives up on it. */
const RESTART_PROBE_MS = 2_000;

/** The fragment a restart gives the previous episode's history entry (see `probePrevious`). */
const RESTART_MARK = "#rehearsal-restart";

/**
 * What the previous episode's page leaves to a restart, in one evaluation:
 * - `clear`: whether its origin may hold storage beyond local and session storage (cookies,
 *   IndexedDB databases, CacheStorage); true when the page shows another origin or the check fails.
 * - `direct`: whether the entry page may load straight from it. A new page's history holds
 *   about:blank and the entry page (history.length 2). Loading the entry page from the previous one
 *   after `Page.resetNavigationHistory` gives two entries as well, unless the entry URL equals the
 *   current one (Chromium then replaces the entry: one). So the current entry's URL is first given
 *   RESTART_MARK (`history.replaceState`, no new document, no event); a page that replaced that
 *   function, an entry URL with a fragment (it would be a same-document navigation) or storage to
 *   clear (cleared while no document of the origin is live) take the about:blank hop instead.
 * A page that does not answer within RESTART_PROBE_MS (stuck in a script) throws `env.timeout`: the
 * restart then gives up at once and a new context is opened.
 */
async function probePrevious(
  evaluate: <T>(expression: string) => Promise<T>,
  origin: string,
  entryPath: string,
): Promise<{ clear: boolean; direct: boolean }> {
  const expression = `(async () => {
    const left = await (async () => {
      if (location.origin !== ${JSON.stringify(origin)}) return true;
      if (document.cookie !== "") return true;
      if (typeof indexedDB !== "undefined" && (await indexedDB.databases()).length > 0) return true;
      return typeof caches !== "undefined" && (await caches.keys()).length > 0;
    })();
    if (left || ${JSON.stringify(entryPath.includes("#"))}) return { clear: left, direct: false };
    try { history.replaceState(history.state, "", ${JSON.stringify(RESTART_MARK)}); } catch {}
    return { clear: false, direct: location.hash === ${JSON.stringify(RESTART_MARK)} };
  })()`;
  const check = evaluate<{ clear: boolean; direct: boolean }>(expression).catch(() => ({
    clear: true,
    direct: false,
  }));
  return withTimeout(check, RESTART_PROBE_MS, "checking the previous episode's page");
}

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
    proxy: await blockingProxy(origin),
  });
  let closing = false;
  let seeded: Disposable | null = null;
  let watch: LoadWatch | null = null;
  let cdp: CDPSession | null = null;
  const state: EpisodePage = {
    context,
    page: undefined as unknown as Page,
    blocked: { count: 0, urls: [] },
    dialogs: [],
    dead: false,
    unresponsive: false,
    holdDialog: null,
    allowPages: 0,
    async restart(target) {
      const page = state.page;
      const run = async () => {
        for (const p of context.pages()) if (p !== page) await p.close();
        state.holdDialog = null;
        state.allowPages = 0;
        state.dialogs.length = 0;
        state.blocked.count = 0;
        state.blocked.urls.length = 0;
        cdp ??= await context.newCDPSession(page);
        // Cookies, IndexedDB and caches of the task server's origin: a new context has none. Clearing
        // them costs tens of milliseconds, so only when the page shows some (local and session
        // storage are cleared as the next document starts, FRESH_TAB_SCRIPT).
        const { clear, direct } = await probePrevious(state.evaluate, origin, target.entryPath);
        // A new page's history has two entries: about:blank (here the previous page's, marked) and
        // the entry page. The about:blank hop unloads the previous page before its storage is cleared.
        if (!direct) await page.goto("about:blank");
        // Independent of each other (init scripts act on the next document only): sent together.
        const session = cdp;
        const previousSeed = seeded;
        const [, , , , nextSeed, fresh] = await Promise.all([
          session.send("Page.resetNavigationHistory"),
          clear ? session.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" }) : null,
          target.resetViewport ? page.setViewportSize(config.viewport) : null,
          previousSeed?.dispose(),
          context.addInitScript({ content: seedScript(target.seed) }),
          page.addInitScript({ content: FRESH_TAB_SCRIPT }),
        ]);
        seeded = nextSeed;
        await loadAndStartEpisode(page, watch as LoadWatch, state.evaluate, {
          origin,
          entryPath: target.entryPath,
          seed: target.seed,
          timeoutMs: config.actionTimeoutMs,
        });
        await fresh.dispose();
      };
      try {
        await withTimeout(run(), config.actionTimeoutMs * 3, `restarting an episode in ${target.entryPath}`);
      } catch (error) {
        await state.close();
        throw error;
      }
    },
    evaluate<T>(expression: string): Promise<T> {
      if (!cdp) return state.page.evaluate(expression) as Promise<T>;
      return cdpEvaluate<T>(cdp, expression);
    },
    screenshot(): Promise<Uint8Array> {
      if (!cdp) return state.page.screenshot({ type: "png", caret: "hide" });
      return captureViewport(cdp, state.page);
    },
    async moveAndWheel(x, y, deltaX, deltaY) {
      if (!cdp) return playwrightMoveAndWheel(state.page, x, y, deltaX, deltaY);
      const pointer = { x, y, modifiers: 0 };
      await Promise.all([
        cdp.send("Input.dispatchMouseEvent", { type: "mouseMoved", ...pointer, button: "none", buttons: 0 }),
        cdp.send("Input.dispatchMouseEvent", { type: "mouseWheel", ...pointer, deltaX, deltaY }),
      ]);
    },
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
    countBlockedTraffic(context, origin, block);
    if (config.fixedTime !== null) await context.clock.setFixedTime(config.fixedTime);
    await context.addInitScript({ content: PAGE_AGENT_SOURCE });
    seeded = await context.addInitScript({ content: seedScript(options.seed) });
    const page = await context.newPage();
    (state as { page: Page }).page = page;
    cdp = await context.newCDPSession(page);
    watch = new LoadWatch(page, origin);
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
    await loadAndStartEpisode(page, watch, state.evaluate, {
      origin,
      entryPath: options.entryPath,
      seed: options.seed,
      timeoutMs: config.actionTimeoutMs,
    });
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

/** Whether `handle` can start another episode in place (`restart`): alive, answering, no dialog held. */
export function canRestart(handle: EpisodePage): boolean {
  return (
    !handle.dead &&
    !handle.unresponsive &&
    handle.holdDialog === null &&
    !handle.page.isClosed() &&
    handle.context.browser()?.isConnected() === true
  );
}
