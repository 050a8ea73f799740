// Web environment benchmark: step latency against bare Playwright on the same page, reset latency,
// replay cost per prefix step, memory per browser context and CPU per reset and step split by
// process (Node, Chromium's browser, renderer, GPU and utility processes). Run by bench/run.ts.
import type { Action } from "../src/core/index.ts";
import {
  BrowserPool,
  bareClickAndAriaSnapshot,
  bareClickAndScreenshot,
  chromiumRssBytes,
  createWebEnvironment,
  listDescendants,
  type WebEnvironment,
} from "../src/envs/web/index.ts";
import { kindOf, procCpuMs } from "./search-probe.ts";

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
  return { ...out, ...(await benchWebEpisodeCpu()) };
}

/** A span's CPU ms by kind: node, Chromium's browser, renderer, gpu-process, utility, ... and reaped. */
type CpuByKind = Record<string, number>;

function add(into: CpuByKind, kind: string, ms: number): void {
  into[kind] = (into[kind] ?? 0) + ms;
}

/** Chromium's processes of `pool` with their kind (one scan of /proc: done outside the measured spans). */
function chromiumProcesses(pool: BrowserPool): Array<{ pid: number; kind: string }> {
  const ids = new Set(pool.processIds());
  return listDescendants(process.pid)
    .filter((p) => ids.has(p.pid))
    .map((p) => ({ pid: p.pid, kind: kindOf(p.cmdline) }));
}

/**
 * CPU ms by kind: Node's from process.cpuUsage, Chromium's from /proc. At a span's start Node is
 * read last (here), at its end first (`end`, read by the caller), so that reading /proc is not counted.
 */
function cpuSample(procs: ReadonlyArray<{ pid: number; kind: string }>, end?: NodeJS.CpuUsage): CpuByKind {
  const out: CpuByKind = {};
  for (const p of procs) {
    const t = procCpuMs(p.pid);
    if (!t) continue;
    add(out, p.kind, t.own);
    // Processes that ended (renderers of closed contexts) are counted in their parent once reaped.
    add(out, "reaped", t.reaped);
  }
  const node = end ?? process.cpuUsage();
  out.node = (node.user + node.system) / 1000;
  return out;
}

/** CPU of `fn` by kind; the processes are listed before and after it (a reset may start or end some). */
async function measured(pool: BrowserPool, into: CpuByKind, fn: () => Promise<unknown>) {
  const before = chromiumProcesses(pool);
  const start = cpuSample(before);
  await fn();
  const node = process.cpuUsage();
  const after = chromiumProcesses(pool).filter((p) => !before.some((q) => q.pid === p.pid));
  const end = cpuSample([...before, ...after], node);
  for (const [k, ms] of Object.entries(end)) add(into, k, ms - (start[k] ?? 0));
}

/**
 * CPU per reset and per step of oracle episodes on built-in tasks (click-checkboxes and checkout:
 * clicks, typing, selects), split by process: Node and each kind of Chromium process. Screenshots on
 * (the default observation). Every other episode starts in a new environment (a new context and
 * renderer: `fresh_reset`, with the previous environment's `close`), the others in the previous
 * episode's context (`reset`). Steps (all, and clicks and typing apart) exclude the oracle's own
 * evaluation.
 */
export async function benchWebEpisodeCpu(
  options: { episodes?: number; extraArgs?: ReadonlyArray<string>; screenshot?: boolean } = {},
): Promise<Record<string, number>> {
  const episodes = options.episodes ?? 12;
  const pool = new BrowserPool({ extraArgs: options.extraArgs ?? [] });
  const config = { observation: { screenshot: options.screenshot ?? true } };
  const zero = (): CpuByKind => ({});
  const spans = {
    reset: zero(),
    fresh_reset: zero(),
    close: zero(),
    step: zero(),
    step_click: zero(),
    step_type: zero(),
  };
  const counts = { reset: 0, fresh_reset: 0, close: 0, step: 0, step_click: 0, step_type: 0 };
  let env = await createWebEnvironment(config, { pool });
  try {
    // Warm-up: the browser launch, the first context and the task server's first loads.
    for (const taskId of ["click-checkboxes", "checkout"]) await env.reset({ taskId, seed: 0 });
    for (let i = 0; i < episodes; i++) {
      const taskId = i % 4 < 2 ? "click-checkboxes" : "checkout";
      const target = { taskId, seed: 100 + i };
      if (i % 2 === 0) {
        await measured(pool, spans.reset, () => env.reset(target));
        counts.reset += 1;
      } else {
        const old = env;
        await measured(pool, spans.close, () => old.close());
        counts.close += 1;
        await measured(pool, spans.fresh_reset, async () => {
          env = await createWebEnvironment(config, { pool });
          await env.reset(target);
        });
        counts.fresh_reset += 1;
      }
      for (let k = 0; k < 24; k++) {
        const action = await env.oracleAction();
        if (!action) break;
        let ended = false;
        const kind = action.type === "type" ? "step_type" : action.type === "click" ? "step_click" : null;
        const span = zero();
        await measured(pool, span, async () => {
          const r = await env.step(action);
          ended = r.terminated || r.truncated;
        });
        for (const [k, ms] of Object.entries(span)) {
          add(spans.step, k, ms);
          if (kind) add(spans[kind], k, ms);
        }
        counts.step += 1;
        if (kind) counts[kind] += 1;
        if (ended) break;
      }
      await env.evaluate();
    }
  } finally {
    await env.close();
    await pool.close();
  }
  const out: Record<string, number> = {};
  for (const [name, span] of Object.entries(spans)) {
    const n = counts[name as keyof typeof counts];
    out[`${name}_count`] = n;
    let total = 0;
    for (const [k, ms] of Object.entries(span)) {
      out[`${name}_cpu_${k}_ms`] = ms / n;
      total += ms;
    }
    out[`${name}_cpu_total_ms`] = total / n;
  }
  return out;
}
