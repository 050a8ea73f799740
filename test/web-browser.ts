import { afterAll, beforeAll } from "vitest";
import { BrowserPool } from "../src/envs/web/index.ts";

/**
 * Keeps this process's shared Chromium open for the whole test file: every in-process command (or
 * environment) that opens a web environment on the shared pool takes the one browser instead of
 * launching and closing its own. What these tests check is the command's result, not the launch; the
 * pool's launches, closes and crash relaunches are proven in `test/envs/web/lifecycle.test.ts`, which
 * does not use this. Call it once at the top level of a test file.
 */
export function shareBrowserAcrossFile(): void {
  let pool: BrowserPool | undefined;
  beforeAll(() => {
    pool = BrowserPool.shared();
  });
  afterAll(async () => {
    await pool?.release();
  });
}
