import { z } from "zod";
import { EnvironmentError, UserError } from "../../core/errors.ts";
import { type SearchLimits, StockfishProcess, stockfishScriptPath } from "./stockfish-process.ts";

export const StockfishPoolOptionsSchema = z
  .object({
    /** Engine processes run in parallel. */
    size: z.number().int().min(1).max(64).default(1),
    /** Default search depth (plies). */
    depth: z.number().int().min(1).max(40).default(8),
    /** Search by time instead (ms); makes answers depend on machine load. */
    movetimeMs: z.number().int().positive().optional(),
    /** Limit for one request; past it the engine is killed and replaced. */
    timeoutMs: z.number().int().positive().default(30_000),
    /** Limit for starting one engine. */
    startTimeoutMs: z.number().int().positive().default(20_000),
    /** Engine script; default: the lite single-threaded flavour of the `stockfish` package. */
    scriptPath: z.string().min(1).optional(),
  })
  .strict();
export type StockfishPoolOptionsInput = z.input<typeof StockfishPoolOptionsSchema>;
export type StockfishPoolOptions = z.output<typeof StockfishPoolOptionsSchema>;

/**
 * A small pool of Stockfish child processes. Engines start lazily; `bestMove` borrows a free one
 * (or waits). An engine that crashed or timed out is dropped and a fresh one started for the next
 * request; a request whose engine died is retried once on a fresh engine. `close()` is idempotent and
 * leaves no process behind.
 */
export class StockfishPool {
  readonly options: StockfishPoolOptions;
  private readonly scriptPath: string;
  private readonly idle: StockfishProcess[] = [];
  private readonly all = new Set<StockfishProcess>();
  private starting = 0;
  private readonly waiters: Array<(engine: StockfishProcess) => void> = [];
  private readonly rejecters: Array<(error: Error) => void> = [];
  private closed = false;
  private closing: Promise<void> | undefined;
  private startedCount = 0;

  constructor(input: StockfishPoolOptionsInput = {}) {
    const parsed = StockfishPoolOptionsSchema.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
      throw new UserError(
        "chess.bad_engine_config",
        `Stockfish pool options are invalid: ${issues.join("; ")}.`,
      );
    }
    this.options = parsed.data;
    this.scriptPath = parsed.data.scriptPath ?? stockfishScriptPath();
  }

  /** Engines started so far (replacements included). */
  get started(): number {
    return this.startedCount;
  }

  /** Process ids of the live engines (for tests and diagnostics). */
  pids(): number[] {
    return [...this.all].filter((e) => e.alive && e.pid !== undefined).map((e) => e.pid as number);
  }

  /** The best move for `fen` (after `moves`), or null when the side to move has none. */
  async bestMove(
    fen: string,
    moves: ReadonlyArray<string> = [],
    limits: SearchLimits = {},
  ): Promise<string | null> {
    const full: SearchLimits = {
      timeoutMs: limits.timeoutMs ?? this.options.timeoutMs,
      ...(limits.depth !== undefined || limits.movetimeMs !== undefined
        ? {}
        : this.options.movetimeMs !== undefined
          ? { movetimeMs: this.options.movetimeMs }
          : { depth: this.options.depth }),
      ...(limits.depth !== undefined ? { depth: limits.depth } : {}),
      ...(limits.movetimeMs !== undefined ? { movetimeMs: limits.movetimeMs } : {}),
    };
    for (let attempt = 0; ; attempt++) {
      const engine = await this.acquire();
      try {
        return await engine.bestMove(fen, moves, full);
      } catch (error) {
        const died = error instanceof EnvironmentError && error.code === "chess.engine_exited";
        if (!died || attempt >= 1 || this.closed) throw error;
      } finally {
        this.release(engine);
      }
    }
  }

  /** Stops every engine; idempotent. Pending requests fail with an EnvironmentError. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    const error = new EnvironmentError("chess.pool_closed", "The Stockfish pool was closed.");
    for (const reject of this.rejecters.splice(0)) reject(error);
    this.waiters.splice(0);
    this.closing = Promise.all([...this.all].map((e) => e.close())).then(() => {
      this.all.clear();
      this.idle.splice(0);
    });
    return this.closing;
  }

  private async acquire(): Promise<StockfishProcess> {
    if (this.closed) {
      throw new EnvironmentError("chess.pool_closed", "The Stockfish pool is closed; create a new one.");
    }
    while (this.idle.length > 0) {
      const engine = this.idle.pop() as StockfishProcess;
      if (engine.alive) return engine;
      this.all.delete(engine);
    }
    if (this.all.size + this.starting < this.options.size) {
      this.starting++;
      try {
        const engine = await StockfishProcess.start({
          scriptPath: this.scriptPath,
          startTimeoutMs: this.options.startTimeoutMs,
        });
        this.startedCount++;
        if (this.closed) {
          await engine.kill();
          throw new EnvironmentError("chess.pool_closed", "The Stockfish pool was closed.");
        }
        this.all.add(engine);
        return engine;
      } finally {
        this.starting--;
      }
    }
    return new Promise((resolve, reject) => {
      this.waiters.push(resolve);
      this.rejecters.push(reject);
    });
  }

  private release(engine: StockfishProcess): void {
    if (!engine.alive) {
      this.all.delete(engine);
      // A waiter takes the freed slot: it starts a replacement engine.
      const resolve = this.waiters.shift();
      const reject = this.rejecters.shift();
      if (resolve && reject) this.acquire().then(resolve, reject);
      return;
    }
    if (this.closed) return;
    const resolve = this.waiters.shift();
    this.rejecters.shift();
    if (resolve) resolve(engine);
    else this.idle.push(engine);
  }
}
