// What the search bench measures beside throughput: CPU per process kind (this node process and every
// Chromium child, read from /proc) and how many environment operations are in flight over time.
import { readFileSync } from "node:fs";
import type { Environment } from "../src/core/index.ts";
import { listDescendants } from "../src/envs/web/process-tree.ts";

/**
 * CPU ms of a process from /proc (10 ms ticks): its own (user + system) and that of its children
 * already reaped (processes that ended, counted in their parent once waited for); null when it is
 * gone or /proc is missing.
 */
export function procCpuMs(pid: number): { own: number; reaped: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { own: (Number(f[11]) + Number(f[12])) * 10, reaped: (Number(f[13]) + Number(f[14])) * 10 };
  } catch {
    return null;
  }
}

function cpuMsOf(pid: number): number {
  return procCpuMs(pid)?.own ?? 0;
}

/** The kind of a process: node (this one), Chromium's renderer, gpu-process, utility, ..., or browser. */
export function kindOf(cmdline: string): string {
  return /--type=([\w-]+)/.exec(cmdline)?.[1] ?? "browser";
}

/** CPU ms so far by pid, with each pid's kind. */
export function cpuSample(): Map<number, { kind: string; ms: number }> {
  const out = new Map([[process.pid, { kind: "node", ms: cpuMsOf(process.pid) }]]);
  for (const p of listDescendants()) out.set(p.pid, { kind: kindOf(p.cmdline), ms: cpuMsOf(p.pid) });
  return out;
}

/** CPU ms spent between two samples, by kind (a process started in between counts from zero). */
export function cpuSpent(
  before: ReadonlyMap<number, { ms: number }>,
  after: ReadonlyMap<number, { kind: string; ms: number }>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [pid, { kind, ms }] of after) out[kind] = (out[kind] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  return out;
}

/** Environment operations in flight over time: the time-weighted mean and the share of time with n. */
export class InFlight {
  private now = 0;
  private since = performance.now();
  private readonly timeAt: number[] = [];

  private move(delta: number): void {
    const t = performance.now();
    this.timeAt[this.now] = (this.timeAt[this.now] ?? 0) + t - this.since;
    this.since = t;
    this.now += delta;
  }

  /** The same environment, every operation counted while it runs (prewarm included when it has one). */
  track(env: Environment): Environment {
    const wrapped: Record<string, unknown> = {
      family: env.family,
      suite: env.suite,
      capabilities: env.capabilities,
    };
    const source = env as unknown as Record<string, unknown>;
    for (const name of [
      "reset",
      "step",
      "evaluate",
      "fingerprint",
      "snapshot",
      "restore",
      "oracleAction",
      "prewarm",
    ]) {
      const f = source[name];
      if (typeof f !== "function") continue;
      wrapped[name] = async (...args: unknown[]) => {
        this.move(1);
        try {
          return await (f as (...a: unknown[]) => Promise<unknown>).apply(env, args);
        } finally {
          this.move(-1);
        }
      };
    }
    wrapped.close = () => env.close();
    return wrapped as unknown as Environment;
  }

  /** Mean operations in flight since construction, and the share of time with at least `n` for n = 1..4. */
  figures(): { mean: number; atLeast: number[] } {
    this.move(0);
    const total = this.timeAt.reduce((a, b) => a + (b ?? 0), 0) || 1;
    const mean = this.timeAt.reduce((a, b, n) => a + n * (b ?? 0), 0) / total;
    const atLeast = [1, 2, 3, 4].map((n) => this.timeAt.slice(n).reduce((a, b) => a + (b ?? 0), 0) / total);
    return { mean, atLeast };
  }
}
