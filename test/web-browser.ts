import { afterAll, beforeAll } from "vitest";
import { BrowserPool } from "../src/envs/web/index.ts";
import { onWorkerTeardown } from "./worker-scope.ts";

/** The worker's own reference on the shared pool (fast project only), and whether its teardown is set. */
let held: BrowserPool | undefined;
let teardownRegistered = false;
/** References the current file holds (a file may take several: its own call and the set-up file's). */
let fileRefs = 0;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Takes one reference on this process's shared pool for a test file. In a worker scope (the fast
 * project, `test/worker-environment.ts`) the worker also keeps one reference for itself, so the browser
 * stays open from one file to the next and closes when the worker stops. A file that closed the shared
 * pool on purpose leaves a closed pool: the next file gets a fresh pool (and browser) and the worker
 * holds that one instead. A browser that no longer answers when a file ends (the file killed it) is
 * dropped the same way (`releaseFileBrowser`).
 */
export function acquireFileBrowser(): BrowserPool {
  const pool = BrowserPool.shared();
  fileRefs += 1;
  if (held === pool) return pool;
  if (!teardownRegistered) teardownRegistered = onWorkerTeardown(releaseWorkerBrowser);
  if (!teardownRegistered) return pool; // no worker scope: one browser per file
  held = BrowserPool.shared(); // the same pool: the worker's own reference
  return pool;
}

/**
 * Drops the file's reference; the browser closes here only when no worker holds it. After the file's
 * last reference, a browser the worker keeps must still answer (a file may have killed it, and its
 * `disconnected` event may not have come yet): else the worker drops it and the next file starts fresh.
 */
export async function releaseFileBrowser(pool: BrowserPool): Promise<void> {
  fileRefs = Math.max(0, fileRefs - 1);
  await pool.release();
  if (fileRefs === 0 && held !== undefined && !(await answers(held))) {
    const dead = held;
    held = undefined;
    await dead.close();
  }
}

/**
 * Whether the pool's browser answers a round trip (true when none is running: nothing to keep). Every
 * launch ends in at most one crash, so the pool holds a browser it believes live while it launched
 * more often than it saw one die.
 */
async function answers(pool: BrowserPool): Promise<boolean> {
  if (pool.launches <= pool.crashes) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no answer")), PROBE_TIMEOUT_MS);
  });
  try {
    const round = (async () => {
      const session = await (await pool.browser()).newBrowserCDPSession();
      await session.send("Browser.getVersion");
      await session.detach();
    })();
    await Promise.race([round, timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Drops the worker's reference (the worker is stopping): the last user closes the browser. */
async function releaseWorkerBrowser(): Promise<void> {
  const pool = held;
  held = undefined;
  teardownRegistered = false;
  await pool?.release();
}

/**
 * Keeps this process's shared Chromium open for the whole test file: every in-process command (or
 * environment) that opens a web environment on the shared pool takes the one browser instead of
 * launching and closing its own. In the fast project (one worker, many files) the browser stays open
 * across the worker's files and closes when the worker stops; in the isolated slow project it closes
 * after the file. What these tests check is the command's result, not the launch; the pool's launches,
 * closes and crash relaunches are proven in `test/envs/web/lifecycle.test.ts`, which does not use this,
 * and the sharing itself in `test/web-browser-sharing.test.ts`. Call it once at the top level of a
 * test file.
 */
export function shareBrowserAcrossFile(): void {
  let pool: BrowserPool | undefined;
  beforeAll(() => {
    pool = acquireFileBrowser();
  });
  afterAll(async () => {
    if (pool) await releaseFileBrowser(pool);
  });
}
