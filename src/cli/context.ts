import { createLogger, type LogLevel, type Runtime } from "../core/index.ts";
import { createSystemRuntime } from "../core/system-runtime.ts";
import { openStore, type RunStore } from "../store/index.ts";

/** Builds the edge runtime: real clock, time-ordered ids, and a logger that writes JSON lines to stderr. */
export function createCliRuntime(seed: string, options: { verbose?: boolean } = {}): Runtime {
  const minLevel: LogLevel = options.verbose
    ? "debug"
    : process.env.REHEARSAL_LOG === "debug"
      ? "debug"
      : "warn";
  const logger = createLogger(
    (r) => process.stderr.write(`${JSON.stringify({ level: r.level, msg: r.message, ...r.fields })}\n`),
    {
      minLevel,
      nowMs: Date.now,
    },
  );
  return createSystemRuntime({ seed, logger });
}

export function openCliStore(dir: string): RunStore {
  return openStore({ dir });
}
