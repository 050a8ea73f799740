import { createLogger, type LogLevel } from "../core/logger.ts";
import type { Runtime } from "../core/runtime.ts";
import type { RunConfig, RunnerDeps, SignalController } from "../runner/index.ts";
import { resumeHint } from "../runner/run-status.ts";
import type { RunStore } from "../store/index.ts";
import type { Output } from "./output.ts";

/** What a command gets from the program: its output, and the signal policy of long-running commands. */
export interface CliContext {
  out(): Output;
  /** Installs the SIGINT/SIGTERM policy (once) and returns it; `main` exits with its code. */
  signals(): SignalController;
}

/** Builds the edge runtime: real clock, time-ordered ids, and a logger that writes JSON lines to stderr. */
export async function createCliRuntime(seed: string, options: { verbose?: boolean } = {}): Promise<Runtime> {
  const { createSystemRuntime } = await import("../core/system-runtime.ts");
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

/** Opens the run store in `dir`; the store module (and SQLite) loads only for the commands that use one. */
export async function openCliStore(dir: string): Promise<RunStore> {
  const { openStore } = await import("../store/index.ts");
  return openStore({ dir });
}

/**
 * Opens the store, builds the runtime (its seed may come from the store: a resumed run's) and runs
 * `fn` with the runner's deps and the signal policy; the store is closed afterwards.
 */
export async function withRunner<T>(
  ctx: CliContext,
  storeDir: string,
  seed: string | ((store: RunStore) => string),
  fn: (deps: RunnerDeps) => Promise<T>,
): Promise<T> {
  const store = await openCliStore(storeDir);
  try {
    const runtime = await createCliRuntime(typeof seed === "string" ? seed : seed(store));
    return await fn({ runtime, store, signals: ctx.signals() });
  } finally {
    store.close();
  }
}

/** After an interrupted run: how to continue it, on stderr (stdout keeps the JSON result). */
export function warnIfInterrupted(
  o: Output,
  run: { status: string; kind: string; id: string },
  storeDir: string,
): void {
  if (run.status === "interrupted") o.warn(`run ${run.id} interrupted; ${resumeHint(run, storeDir)}`);
}

/**
 * Runs a resumable command (`run`, `search`): a new run of `config`, or the stored run `resume`
 * (its seed comes from the store). `execute` gets the runner's deps and the spec's common part.
 */
export function withResumable<T>(
  ctx: CliContext,
  config: RunConfig | undefined,
  flags: { resume?: string; store?: string },
  execute: (deps: RunnerDeps, spec: { config?: RunConfig; resume?: string; storeDir: string }) => Promise<T>,
): Promise<T> {
  const storeDir = config?.store ?? flags.store ?? ".rehearsal";
  const seed = (store: RunStore) => config?.seed ?? store.getRun(flags.resume ?? "")?.seed ?? "0";
  const spec = { ...(config ? { config } : {}), ...(flags.resume ? { resume: flags.resume } : {}), storeDir };
  return withRunner(ctx, storeDir, seed, (deps) => execute(deps, spec));
}
