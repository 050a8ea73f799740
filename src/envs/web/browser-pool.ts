import type { Browser, BrowserContext, BrowserContextOptions } from "playwright-core";
import { chromium } from "playwright-core";
import { EnvironmentError } from "../../core/index.ts";
import { CHROMIUM_FLAGS, resolveChromiumPath } from "./config.ts";
import { listDescendants } from "./process-tree.ts";
import { withTimeout } from "./web-errors.ts";

export interface BrowserPoolOptions {
  /** Chromium binary; default $REHEARSAL_CHROMIUM or /usr/bin/chromium. */
  executablePath?: string;
  headless?: boolean;
  /** Switches added after the standard ones. */
  extraArgs?: ReadonlyArray<string>;
  launchTimeoutMs?: number;
}

let launchCounter = 0;
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * One Chromium per worker process, many isolated contexts. The browser is launched on first use
 * (`chromium.launch`, a temporary profile that Playwright deletes on close) and relaunched on the next
 * use after it died. Shared pools are reference counted: the browser closes when the last user releases.
 */
export class BrowserPool {
  private static readonly sharedPools = new Map<string, BrowserPool>();

  readonly executablePath: string;
  private readonly options: BrowserPoolOptions;
  private current: Browser | null = null;
  private launching: Promise<Browser> | null = null;
  private tag: string | null = null;
  private users = 0;
  private closed = false;
  private launchCount = 0;
  private crashCount = 0;
  private contextCounter = 0;

  constructor(options: BrowserPoolOptions = {}) {
    this.options = options;
    this.executablePath = resolveChromiumPath(options.executablePath);
  }

  /** The process-wide pool for this binary; call `release()` once per `shared()` when done. */
  static shared(options: BrowserPoolOptions = {}): BrowserPool {
    const key = `${resolveChromiumPath(options.executablePath)}|${options.headless ?? true}`;
    let pool = BrowserPool.sharedPools.get(key);
    if (!pool || pool.closed) {
      pool = new BrowserPool(options);
      BrowserPool.sharedPools.set(key, pool);
    }
    pool.users += 1;
    return pool;
  }

  /** Drops one user of a shared pool; the last one closes the browser. */
  async release(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0) await this.close();
  }

  /** How many browsers this pool launched (a relaunch after a crash counts). */
  get launches(): number {
    return this.launchCount;
  }

  /** How many browser contexts this pool opened (over all launches). */
  get contextsCreated(): number {
    return this.contextCounter;
  }

  /** How many times the browser was found dead. */
  get crashes(): number {
    return this.crashCount;
  }

  /** The live browser, launching (or relaunching after a crash) when needed. */
  async browser(): Promise<Browser> {
    if (this.closed)
      throw new EnvironmentError("env.pool_closed", "the browser pool is closed; create a new one");
    if (this.current?.isConnected()) return this.current;
    this.current = null;
    if (!this.launching) {
      this.launching = this.launch().finally(() => {
        this.launching = null;
      });
    }
    return this.launching;
  }

  private async launch(): Promise<Browser> {
    launchCounter += 1;
    const tag = `${process.pid}-${launchCounter}`;
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: this.executablePath,
        headless: this.options.headless ?? true,
        args: [...CHROMIUM_FLAGS, ...(this.options.extraArgs ?? []), `--rehearsal-pool=${tag}`],
        timeout: this.options.launchTimeoutMs ?? 60_000,
        // The process's own shutdown path closes the pool (env.close()); Playwright must not race it.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      throw new EnvironmentError(
        "env.browser_launch_failed",
        `could not launch Chromium at ${this.executablePath}: ${(error as Error).message}. ` +
          "Install it (apt-get install -y chromium) or point REHEARSAL_CHROMIUM at a Chromium binary.",
        { cause: error },
      );
    }
    this.launchCount += 1;
    this.tag = tag;
    this.current = browser;
    browser.on("disconnected", () => {
      if (!this.closed) this.crashCount += 1;
      if (this.current === browser) this.current = null;
    });
    if (this.closed) {
      await browser.close().catch(() => {});
      throw new EnvironmentError("env.pool_closed", "the browser pool was closed while launching");
    }
    return browser;
  }

  /** A fresh isolated context in the live browser. */
  async newContext(options: BrowserContextOptions): Promise<BrowserContext> {
    const browser = await this.browser();
    try {
      const context = await browser.newContext(options);
      this.contextCounter += 1;
      return context;
    } catch (error) {
      throw new EnvironmentError(
        "env.browser_crashed",
        `could not open a browser context: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }

  /** Open contexts of the live browser (0 when none is running). */
  contextCount(): number {
    return this.current?.isConnected() ? this.current.contexts().length : 0;
  }

  /** Open pages over all contexts of the live browser. */
  pageCount(): number {
    if (!this.current?.isConnected()) return 0;
    return this.current.contexts().reduce((n, c) => n + c.pages().length, 0);
  }

  /** The pid of the live browser's main process (Linux), or null. */
  browserPid(): number | null {
    if (!this.current?.isConnected() || this.tag === null) return null;
    const mark = `--rehearsal-pool=${this.tag}`;
    const hit = listDescendants(process.pid).find((p) => p.cmdline.includes(mark));
    return hit ? hit.pid : null;
  }

  /**
   * The live browser's processes (Linux): its main process and every descendant (zygotes, GPU,
   * renderers). Only this pool's, whatever else runs a browser on the machine; empty when none runs.
   */
  processIds(): number[] {
    const pid = this.browserPid();
    if (pid === null) return [];
    return [pid, ...listDescendants(pid).map((p) => p.pid)];
  }

  /**
   * Kills the live browser at once (SIGKILL to its processes), for when closing it politely could
   * hang (a page that blocks its main thread). The next use relaunches; open contexts are lost.
   */
  kill(): void {
    const pids = this.processIds();
    for (const pid of pids.reverse()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  /** Closes the browser; idempotent. A closed pool cannot launch again. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = this.launching;
    const browser = this.current;
    this.current = null;
    if (pending) await pending.catch(() => undefined);
    if (browser) {
      await withTimeout(browser.close(), CLOSE_TIMEOUT_MS, "closing the browser").catch(() => {
        // A browser that does not close in time is killed, so that close() always returns.
        this.current = browser;
        this.kill();
        this.current = null;
      });
    }
    for (const [key, pool] of BrowserPool.sharedPools) if (pool === this) BrowserPool.sharedPools.delete(key);
  }
}
