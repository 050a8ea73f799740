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
    holdDialog: null,
    allowPages: 0,
    async close() {
      if (closing) return;
      closing = true;
      context.browser()?.off("disconnected", markDead);
      await withTimeout(context.close(), 10_000, "closing a browser context").catch(() => {});
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
      page.evaluate(`(() => {
        if (!window.core || typeof window.core.startEpisodeReal !== "function") return "no core.startEpisodeReal";
        if (typeof Math.seedrandom === "function") Math.seedrandom(${JSON.stringify(options.seed)});
        window.core.EPISODE_MAX_TIME = Infinity;
        window.core.startEpisodeReal();
        return window.WOB_TASK_READY === true ? "ready" : "ok";
      })()`),
      config.actionTimeoutMs,
      `starting the episode of ${options.entryPath}`,
    );
    if (started !== "ok" && started !== "ready") {
      throw new EnvironmentError(
        WEB_ERROR_CODES.taskPageInvalid,
        `task page ${options.entryPath} has ${started}; include /core/core.js and define genProblem() (PROTOCOL.md)`,
      );
    }
    await page.waitForFunction("window.WOB_TASK_READY === true", undefined, {
      timeout: config.actionTimeoutMs,
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
