/**
 * The one signal policy of every long-running command. The first SIGINT or SIGTERM aborts the
 * controller's `signal`: intake stops, in-flight work finishes or ends as `aborted`, what is complete
 * stays written and the run is marked `interrupted`; the command then exits with the signal's code.
 * A second signal runs the force-exit hooks (synchronous: they mark the open runs `interrupted`, so
 * the store stays resumable) and exits at once with the same code.
 */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;
const STOP_SIGNALS = Object.keys(SIGNAL_EXIT_CODES) as StopSignal[];

/** What the controller listens on: `process` by default, any emitter in tests. */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown;
  off(event: StopSignal, listener: () => void): unknown;
}

export interface SignalController {
  /** Aborted by the first signal; its `reason` is the signal's name. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): StopSignal | undefined;
  /** 130 after SIGINT, 143 after SIGTERM, undefined while none came. */
  exitCode(): number | undefined;
  /** Registers a synchronous hook run on a second signal just before the exit; returns its remover. */
  onForceExit(hook: () => void): () => void;
  /** Stops listening (the signal keeps its state). */
  dispose(): void;
}

export interface SignalControllerOptions {
  source?: SignalSource;
  /** How a second signal ends the process (default `process.exit`). */
  exit?: (code: number) => void;
  /** Told of the first signal, e.g. to print "stopping; signal again to exit now". */
  onFirst?: (signal: StopSignal) => void;
}

export function createSignalController(options: SignalControllerOptions = {}): SignalController {
  const source = options.source ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  const hooks = new Set<() => void>();
  let first: StopSignal | undefined;
  const listeners = STOP_SIGNALS.map((name) => {
    const listener = () => {
      if (first === undefined) {
        first = name;
        controller.abort(name);
        options.onFirst?.(name);
        return;
      }
      for (const hook of hooks) {
        try {
          hook();
        } catch {
          // Exiting now matters more than a hook that failed: the store is transactional.
        }
      }
      exit(SIGNAL_EXIT_CODES[first]);
    };
    source.on(name, listener);
    return [name, listener] as const;
  });
  return {
    signal: controller.signal,
    received: () => first,
    exitCode: () => (first === undefined ? undefined : SIGNAL_EXIT_CODES[first]),
    onForceExit(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    dispose() {
      for (const [name, listener] of listeners) source.off(name, listener);
    },
  };
}
