// Web environment benchmark: step latency against bare Playwright on the same page, reset latency,
// replay cost per prefix step and memory per browser context. Run by bench/run.ts.
import type { Action } from "../src/core/index.ts";
import {
  BrowserPool,
  bareClickAndAriaSnapshot,
  bareClickAndScreenshot,
  chromiumRssBytes,
  createWebEnvironment,
  type WebEnvironment,
} from "../src/envs/web/index.ts";

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Element id and centre of the enter-text field (clicking it never ends the episode). */
async function textField(env: WebEnvironment): Promise<{ id: string; x: number; y: number }> {
  await env.reset({ taskId: "enter-text", seed: 1 });
  const { id, box } = await env.withPage(async (page) => ({
    id: await page.locator("#tt").getAttribute("data-rh-id"),
    box: await page.locator("#tt").boundingBox(),
  }));
  if (!id || !box) throw new Error("bench: no text field on enter-text");
  return { id, x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
}

async function stepLatency(
  env: WebEnvironment,
  rounds: number,
  bare: (x: number, y: number) => Promise<unknown>,
): Promise<{ ours: number; bare: number }> {
  const { id, x, y } = await textField(env);
  const click: Action = { type: "click", elementId: id };
  for (let i = 0; i < 3; i++) {
    await env.step(click);
    await bare(x, y);
  }
  const ours: number[] = [];
  const base: number[] = [];
  // Interleaved so that machine load affects both sides alike.
  for (let i = 0; i < rounds; i++) {
    ours.push(await timed(() => env.step(click)));
    base.push(await timed(() => bare(x, y)));
  }
  return { ours: median(ours), bare: median(base) };
}

export async function benchWeb(): Promise<Record<string, number>> {
  const rounds = 25;
  const pool = new BrowserPool();
  const out: Record<string, number> = {};
  const axEnv = await createWebEnvironment(
    { observation: { screenshot: false }, enforceMaxSteps: false },
    { pool },
  );
  const shotEnv = await createWebEnvironment(
    { observation: { axtree: false, screenshot: true }, enforceMaxSteps: false },
    { pool },
  );
  try {
    const ax = await stepLatency(axEnv, rounds, (x, y) =>
      axEnv.withPage((page) => bareClickAndAriaSnapshot(page, x, y)),
    );
    out.step_click_axtree_ms = ax.ours;
    out.bare_click_aria_snapshot_ms = ax.bare;
    out.ratio_click_axtree = ax.ours / ax.bare;
    const shot = await stepLatency(shotEnv, rounds, (x, y) =>
      shotEnv.withPage((page) => bareClickAndScreenshot(page, x, y)),
    );
    out.step_click_screenshot_ms = shot.ours;
    out.bare_click_screenshot_ms = shot.bare;
    out.ratio_click_screenshot = shot.ours / shot.bare;
    await shotEnv.close();

    const resets: number[] = [];
    for (let i = 0; i < 12; i++) {
      resets.push(await timed(() => axEnv.reset({ taskId: i % 2 ? "click-button" : "enter-text", seed: i })));
    }
    out.reset_ms = median(resets);

    // Replay: reset + a 6-step prefix, minus the reset, per step.
    const { id } = await textField(axEnv);
    const prefix: Action[] = [
      { type: "click", elementId: id },
      { type: "type", text: "ab" },
      { type: "key", keys: "Backspace" },
      { type: "type", text: "c" },
      { type: "key", keys: "ctrl+a" },
      { type: "type", text: "Nadia" },
    ];
    const replays: number[] = [];
    for (let i = 0; i < 5; i++) {
      replays.push(await timed(() => axEnv.branchFrom(prefix, { taskId: "enter-text", seed: 1 })));
    }
    out.replay_prefix6_ms = median(replays);
    out.replay_ms_per_step = Math.max(0, (median(replays) - out.reset_ms) / prefix.length);

    // Memory: Chromium RSS with 5 more live contexts, per context.
    const before = chromiumRssBytes();
    const beforePss = chromiumRssBytes(process.pid, "pss");
    const extra: WebEnvironment[] = [];
    for (let i = 0; i < 5; i++) {
      const e = await createWebEnvironment({ observation: { screenshot: false } }, { pool });
      await e.reset({ taskId: "enter-text", seed: i });
      extra.push(e);
    }
    await new Promise((r) => setTimeout(r, 500));
    out.rss_per_context_mb = (chromiumRssBytes() - before) / 5 / (1024 * 1024);
    out.pss_per_context_mb = (chromiumRssBytes(process.pid, "pss") - beforePss) / 5 / (1024 * 1024);
    for (const e of extra) await e.close();
  } finally {
    await shotEnv.close();
    await axEnv.close();
    await pool.close();
  }
  return out;
}
