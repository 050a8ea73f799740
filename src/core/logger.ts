export type LogLevel = "debug" | "info" | "warn" | "error";
export const LOG_LEVELS: ReadonlyArray<LogLevel> = ["debug", "info", "warn", "error"];

export interface LogRecord {
  level: LogLevel;
  message: string;
  fields: Record<string, unknown>;
  timeMs: number;
}

/** Injected logger: library code logs through this and never writes to the console. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export type LogSink = (record: LogRecord) => void;

/** A logger that passes records at or above `minLevel` to `sink`. */
export function createLogger(
  sink: LogSink,
  options: { minLevel?: LogLevel; nowMs?: () => number } = {},
): Logger {
  const min = LOG_LEVELS.indexOf(options.minLevel ?? "info");
  const now = options.nowMs ?? (() => 0);
  const make = (base: Record<string, unknown>): Logger => {
    const log =
      (level: LogLevel) =>
      (message: string, fields: Record<string, unknown> = {}) => {
        if (LOG_LEVELS.indexOf(level) < min) return;
        sink({ level, message, fields: { ...base, ...fields }, timeMs: now() });
      };
    return {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make({});
}

export const silentLogger: Logger = createLogger(() => {});

/** A logger that keeps its records, for tests. */
export function createMemoryLogger(minLevel: LogLevel = "debug"): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  return Object.assign(
    createLogger((r) => records.push(r), { minLevel }),
    { records },
  );
}
