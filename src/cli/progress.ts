import { createRequire } from "node:module";
import type cliProgress from "cli-progress";

/** cli-progress loads only when a bar is shown (never in JSON mode, off a terminal or in CI). */
const loadProgress = () => createRequire(import.meta.url)("cli-progress") as typeof cliProgress;

export interface Progress {
  update(done: number, payload?: Record<string, string | number>): void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal and output is not JSON; silent otherwise. */
export function createProgress(
  total: number,
  options: { json: boolean; label: string; format?: string },
): Progress {
  if (options.json || !process.stderr.isTTY || process.env.CI) return { update() {}, stop() {} };
  const cliProgress = loadProgress();
  const bar = new cliProgress.SingleBar(
    {
      format: options.format ?? `${options.label} [{bar}] {value}/{total} | success {successRate}`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { successRate: "-" });
  return {
    update: (done, payload) => bar.update(done, payload ?? {}),
    stop: () => bar.stop(),
  };
}
