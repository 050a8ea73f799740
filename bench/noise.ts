// Noise benchmark: what the noise layer costs per step. The same click on enter-text's field through
// the bare web environment (reference), through NoisyEnvironment with no events (the wrapper alone),
// and with a panel someone types into (the layer ticks, recovery is checked and the observation is
// read again every step). Interleaved rounds; medians; ratios against the reference. Run by bench/run.ts.
import type { Action } from "../src/core/index.ts";
import { createWebEnvironment } from "../src/envs/web/index.ts";
import { NoisyEnvironment } from "../src/noise/index.ts";

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export async function benchNoise(): Promise<Record<string, number>> {
  const rounds = 25;
  const options = { observation: { screenshot: false }, enforceMaxSteps: false } as const;
  const bare = await createWebEnvironment(options);
  const quiet = new NoisyEnvironment(await createWebEnvironment(options));
  const busy = new NoisyEnvironment(await createWebEnvironment(options));
  try {
    const field = async (env: { reset: typeof bare.reset }) => {
      const o = await env.reset({ taskId: "enter-text", seed: 1 });
      const id = /\[(\d+)\] textbox/.exec(o.text)?.[1];
      if (!id) throw new Error("bench: no text field on enter-text");
      return { type: "click", elementId: id } as Action;
    };
    const a = await field(bare);
    quiet.setSchedule([]);
    const b = await field(quiet);
    busy.setSchedule([{ id: "e1", step: 0, generator: "notes-panel-typing", seed: 1 }]);
    const c = await field(busy);
    const times: Record<"bare" | "quiet" | "busy", number[]> = { bare: [], quiet: [], busy: [] };
    const timed = async (key: keyof typeof times, fn: () => Promise<unknown>) => {
      const start = performance.now();
      await fn();
      times[key].push(performance.now() - start);
    };
    for (let i = 0; i < rounds + 3; i++) {
      await timed("bare", () => bare.step(a));
      await timed("quiet", () => quiet.step(b));
      await timed("busy", () => busy.step(c));
    }
    for (const k of Object.keys(times) as Array<keyof typeof times>) times[k] = times[k].slice(3);
    const ref = median(times.bare);
    return {
      step_bare_ms: ref,
      step_noisy_wrapper_idle_ms: median(times.quiet),
      step_noise_active_ms: median(times.busy),
      ratio_wrapper_idle: median(times.quiet) / ref,
      ratio_noise_active: median(times.busy) / ref,
    };
  } finally {
    await Promise.all([bare.close(), quiet.close(), busy.close()]);
  }
}
