import {
  EnvironmentError,
  type Logger,
  type ResetOptions,
  ResetOptionsSchema,
  UserError,
} from "../../core/index.ts";
import type { BrowserPool } from "./browser-pool.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { Episode } from "./episode.ts";
import { canRestart, type EpisodePage, openEpisodePage } from "./episode-page.ts";
import type { WebSuite } from "./suite.ts";
import type { TaskServer } from "./task-server.ts";
import { WEB_ERROR_CODES } from "./web-errors.ts";

export interface WebEnvironmentMetrics {
  episodes: number;
  steps: number;
  /** Foreign requests blocked, over all episodes of this environment. */
  blockedRequests: number;
  /** Episodes lost to a dead browser or page. */
  crashes: number;
}

/** What the lifecycle works with: the environment's config, suite, pool, task server and logger. */
export interface EpisodeLifecycleDeps {
  config: WebEnvironmentConfig;
  suite: WebSuite;
  pool: BrowserPool;
  /** Whether `pool` is a shared one (released, not closed, with the environment). */
  sharedPool: boolean;
  server: TaskServer;
  logger: Logger;
}

/**
 * The web environment's episode lifecycle: the live episode, how the next one starts (in the
 * previous episode's context and page when it can restart there, else in a new context while the
 * old one closes), whether the live one already shows a task and seed (prewarm), and closing.
 * Keeps the environment's totals and the contexts opened and reused.
 */
export class EpisodeLifecycle {
  episode: Episode | null = null;
  closed = false;
  readonly totals: WebEnvironmentMetrics = { episodes: 0, steps: 0, blockedRequests: 0, crashes: 0 };
  private readonly contexts = { opened: 0, reused: 0 };

  constructor(private readonly deps: EpisodeLifecycleDeps) {}

  /** Starts an episode of `options.taskId`/`options.seed` and makes it the live one. */
  async open(options: ResetOptions): Promise<Episode> {
    if (this.closed) throw new EnvironmentError(WEB_ERROR_CODES.closed, "reset on a closed web environment");
    const parsed = ResetOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new UserError("env.reset_invalid", `invalid reset options: ${parsed.error.issues[0]?.message}`);
    }
    const { suite, logger } = this.deps;
    const task = suite.get(parsed.data.taskId);
    const target = { entryPath: suite.entryPath(task.id), seed: parsed.data.seed };
    const handle = (await this.restartInPlace(target)) ?? (await this.openFresh(target));
    this.totals.episodes += 1;
    this.episode = {
      task,
      seed: parsed.data.seed,
      handle,
      steps: 0,
      ended: null,
      last: null,
      noise: null,
      frozen: null,
    };
    logger.debug("web episode started", { taskId: task.id, seed: parsed.data.seed });
    return this.episode;
  }

  /** Whether the live episode shows `taskId`/`seed` on a page that answers, without noise. */
  shows(target: { taskId: string; seed: number }): boolean {
    const ep = this.episode;
    const live = ep && !ep.handle.dead && !ep.handle.unresponsive && ep.noise === null;
    return !!live && ep.task.id === target.taskId && ep.seed === target.seed;
  }

  /** Episodes started in a new browser context (`opened`) and in the previous episode's (`reused`). */
  contextStats(): { opened: number; reused: number } {
    return { ...this.contexts };
  }

  metrics(): WebEnvironmentMetrics {
    const live = this.episode ? this.episode.handle.blocked.count : 0;
    return { ...this.totals, blockedRequests: this.totals.blockedRequests + live };
  }

  /** Ends the live episode, closes the task server and closes (or releases) the pool; idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.endEpisode();
    await this.deps.server.close();
    if (this.deps.sharedPool) await this.deps.pool.release();
  }

  /**
   * The next episode in the current episode's context and page (no new context or renderer; see
   * EpisodePage.restart), or null when there is none to reuse or the restart failed (its context is
   * closed then and the caller opens a fresh one, which reports what a fresh page does).
   */
  private async restartInPlace(target: { entryPath: string; seed: number }): Promise<EpisodePage | null> {
    const ep = this.episode;
    if (!ep || !canRestart(ep.handle)) return null;
    this.episode = null;
    await ep.noise?.closeAll();
    this.totals.blockedRequests += ep.handle.blocked.count;
    try {
      await ep.handle.restart({ ...target, resetViewport: !this.configuredViewport(ep.handle) });
    } catch (error) {
      this.deps.logger.debug("restart in the same context failed; opening a fresh one", {
        entryPath: target.entryPath,
        error: (error as Error).message,
      });
      return null;
    }
    this.contexts.reused += 1;
    return ep.handle;
  }

  /**
   * Whether the page's viewport is the configured one (a noise viewport change, or a restore that
   * missed while taking one out, leaves another). Playwright sets the screen with the viewport, so
   * an equal viewport is the whole emulated size a fresh context starts with.
   */
  private configuredViewport(handle: EpisodePage): boolean {
    const size = handle.page.viewportSize();
    const { width, height } = this.deps.config.viewport;
    return size !== null && size.width === width && size.height === height;
  }

  /** A new context and page for the next episode; the previous context closes while it opens. */
  private async openFresh(target: { entryPath: string; seed: number }): Promise<EpisodePage> {
    const { pool, config, server } = this.deps;
    const [handle] = await Promise.all([
      openEpisodePage({ pool, config, origin: server.origin, ...target }),
      this.endEpisode(),
    ]);
    this.contexts.opened += 1;
    return handle;
  }

  private async endEpisode(): Promise<void> {
    const ep = this.episode;
    this.episode = null;
    if (!ep) return;
    await ep.noise?.closeAll();
    this.totals.blockedRequests += ep.handle.blocked.count;
    await ep.handle.close();
  }
}
