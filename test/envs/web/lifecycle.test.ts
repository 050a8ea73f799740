import { describe, expect, it } from "vitest";
import { EnvironmentError, isRehearsalError } from "../../../src/core/index.ts";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { eventually, idWhere, poolProcesses, stillRunning } from "./helpers.ts";

const NO_SCREENSHOT = { observation: { screenshot: false } } as const;

describe("web environment lifecycle", () => {
  // The cases on pools of their own run at the same time (each counts and kills only its own
  // browser's processes); the two on the shared pool follow, one after the other.
  // Five environments of 20 episodes each, both tasks, with and without a step: every case of the loop;
  // a context, page or process left per episode or per environment shows far above the one tolerated.
  it.concurrent("100 reset/close cycles leave no extra contexts, pages or Chromium processes (the pool's own)", async ({
    expect,
  }) => {
    const pool = new BrowserPool();
    let pids: number[] = [];
    let env: WebEnvironment = await createWebEnvironment(NO_SCREENSHOT, { pool });
    try {
      // Warm up, then take the baseline with one live episode.
      for (let i = 0; i < 3; i++) await env.reset({ taskId: "click-button", seed: i });
      await eventually(() => false, 500);
      const baseline = poolProcesses(pool).length;
      expect(baseline).toBeGreaterThan(1);
      expect(pool.contextCount()).toBe(1);
      expect(pool.pageCount()).toBe(1);
      for (let i = 0; i < 100; i++) {
        if (i % 20 === 19) {
          await env.close();
          expect(pool.contextCount()).toBe(0);
          env = await createWebEnvironment(NO_SCREENSHOT, { pool });
        }
        await env.reset({ taskId: i % 2 === 0 ? "enter-text" : "click-button", seed: i });
        if (i % 3 === 0) await env.step({ type: "click", x: 50, y: 50 });
        expect(pool.contextCount()).toBe(1);
        expect(pool.pageCount()).toBe(1);
      }
      expect(pool.launches).toBe(1);
      // Renderer processes of closed contexts exit shortly after; one process above the baseline is
      // tolerated (Chromium starts no spare renderer here, see CHROMIUM_FLAGS).
      const settled = await eventually(() => poolProcesses(pool).length <= baseline + 1, 15_000);
      expect(settled, `pool processes ${poolProcesses(pool).length} vs baseline ${baseline}`).toBe(true);
      await env.close();
      await env.close();
      expect(pool.contextCount()).toBe(0);
    } finally {
      await env.close();
      pids = poolProcesses(pool);
      await pool.close();
    }
    expect(pids.length).toBeGreaterThan(0);
    expect(await eventually(() => stillRunning(pids) === 0, 15_000)).toBe(true);
  }, 480_000);

  it.concurrent("a browser killed mid-episode gives env.browser_crashed; the pool relaunches and the next episode works", async ({
    expect,
  }) => {
    const pool = new BrowserPool();
    const env = await createWebEnvironment(NO_SCREENSHOT, { pool });
    try {
      const obs = await env.reset({ taskId: "enter-text", seed: 4 });
      const pid = pool.browserPid();
      expect(pid).not.toBeNull();
      process.kill(pid as number, "SIGKILL");
      await eventually(() => pool.contextCount() === 0, 5_000);
      const err = await env
        .step({ type: "type", elementId: idWhere(obs, /textbox/), text: "x" })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EnvironmentError);
      expect(isRehearsalError(err) && err.code).toBe("env.browser_crashed");
      expect(isRehearsalError(err) && err.category).toBe("environment");
      // Every later call on the dead episode is typed too, never a reward.
      await expect(env.fingerprint()).rejects.toMatchObject({ code: "env.browser_crashed" });
      const again = await env.reset({ taskId: "enter-text", seed: 4 });
      expect(again.axtree).toBe(obs.axtree);
      expect(pool.launches).toBe(2);
      expect(pool.crashes).toBe(1);
      let action = await env.oracleAction();
      let reward = 0;
      while (action) {
        const r = await env.step(action);
        reward = r.reward;
        if (r.terminated) break;
        action = await env.oracleAction();
      }
      expect(reward).toBe(1);
    } finally {
      await env.close();
      await pool.close();
    }
  }, 120_000);

  it.concurrent("a crashed page (renderer killed) is typed the same way", async ({ expect }) => {
    const pool = new BrowserPool();
    const env = await createWebEnvironment(NO_SCREENSHOT, { pool });
    try {
      await env.reset({ taskId: "click-button", seed: 1 });
      const renderer = await eventually(() => false, 0).then(() =>
        // The renderer of our only page: a child of the browser with --type=renderer.
        chromiumRenderer(pool),
      );
      expect(renderer).not.toBeNull();
      process.kill(renderer as number, "SIGKILL");
      const err = await env.step({ type: "click", x: 10, y: 10 }).catch((e: unknown) => e);
      expect(isRehearsalError(err) && err.code).toBe("env.browser_crashed");
      const obs = await env.reset({ taskId: "click-button", seed: 1 });
      expect(obs.instruction).toMatch(/^Click on the "/);
    } finally {
      await env.close();
      await pool.close();
    }
  });

  it("a shared pool closes its browser when the last environment closes", async () => {
    const a = await createWebEnvironment(NO_SCREENSHOT);
    const b = await createWebEnvironment(NO_SCREENSHOT);
    await a.reset({ taskId: "click-button", seed: 0 });
    await b.reset({ taskId: "click-button", seed: 0 });
    expect(a.browserPool).toBe(b.browserPool);
    expect(a.browserPool.contextCount()).toBe(2);
    await a.close();
    expect(b.browserPool.contextCount()).toBe(1);
    const pids = poolProcesses(b.browserPool);
    expect(pids.length).toBeGreaterThan(0);
    await b.close();
    expect(await eventually(() => stillRunning(pids) === 0, 15_000)).toBe(true);
  });

  it("close() is idempotent and later calls are typed errors", async () => {
    const env = await createWebEnvironment(NO_SCREENSHOT);
    await env.reset({ taskId: "click-button", seed: 0 });
    await Promise.all([env.close(), env.close()]);
    await env.close();
    await expect(env.reset({ taskId: "click-button", seed: 0 })).rejects.toMatchObject({
      code: "env.closed",
    });
    await expect(env.step({ type: "wait", ms: 0 })).rejects.toMatchObject({ code: "env.closed" });
  });
});

async function chromiumRenderer(pool: BrowserPool): Promise<number | null> {
  const { listDescendants } = await import("../../../src/envs/web/index.ts");
  const browserPid = pool.browserPid();
  if (browserPid === null) return null;
  const renderers = listDescendants(browserPid).filter(
    (p) => p.cmdline.includes("--type=renderer") && !p.cmdline.includes("--extension-process"),
  );
  return renderers.length === 1 ? (renderers[0]?.pid ?? null) : (renderers.at(-1)?.pid ?? null);
}
