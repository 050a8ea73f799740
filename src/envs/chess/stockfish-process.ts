import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { EnvironmentError, UserError } from "../../core/errors.ts";

/**
 * Stockfish (GPL-3.0) runs as a separate child process that speaks UCI over stdin/stdout, the way chess
 * GUIs run it; it is never imported into our process.
 *
 * Which file: the `stockfish` npm package declares `bin: scripts/cli.js`. That CLI only runs
 * `node <package>/bin/stockfish.js` (the 94 MB multi-threaded flavour) as a *second* child with inherited
 * stdio. We spawn the same kind of command ourselves — `node <package>/bin/<flavour>.js` — with the
 * lite single-threaded flavour by default: it starts in ~0.3 s, is deterministic at a fixed depth
 * (one thread), and killing our child kills the engine (no orphaned grandchild). If our process dies
 * without `close()`, the engine's stdin closes and the engine script exits on its own.
 */
export const STOCKFISH_FLAVOURS = [
  "stockfish-19-lite-single",
  "stockfish-19-single",
  "stockfish-19-lite",
  "stockfish-19",
] as const;
export type StockfishFlavour = (typeof STOCKFISH_FLAVOURS)[number];

/** The engine script of a flavour inside the installed `stockfish` package. */
export function stockfishScriptPath(flavour: StockfishFlavour = "stockfish-19-lite-single"): string {
  const require = createRequire(import.meta.url);
  let packageJson: string;
  try {
    packageJson = require.resolve("stockfish/package.json");
  } catch (cause) {
    throw new UserError(
      "chess.stockfish_missing",
      "The `stockfish` npm package is not installed; run `npm install` in the project.",
      { cause },
    );
  }
  return join(dirname(packageJson), "bin", `${flavour}.js`);
}

export interface StockfishProcessOptions {
  /** Engine script (default: the lite single-threaded flavour of the installed package). */
  scriptPath?: string;
  /** Limit for the `uci`/`isready` handshake. */
  startTimeoutMs?: number;
}

export interface SearchLimits {
  /** Search depth in plies (deterministic with one thread). */
  depth?: number;
  /** Search time instead of (or besides) depth; not deterministic. */
  movetimeMs?: number;
  /** Hard limit for the whole request; past it the engine is killed and an EnvironmentError thrown. */
  timeoutMs?: number;
}

interface Waiter {
  match: (line: string) => boolean;
  resolve: (line: string) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const DEFAULT_START_TIMEOUT_MS = 20_000;
const DEFAULT_SEARCH_TIMEOUT_MS = 30_000;
const FEN_RE = /^[pnbrqkPNBRQK1-8/]+ [wb] (-|[KQkq]+) (-|[a-h][36]) \d+ \d+$/;
const UCI_RE = /^[a-h][1-8][a-h][1-8][qrbn]?$/;

/** One Stockfish child process. Requests are serialised; use a `StockfishPool` for parallelism. */
export class StockfishProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = "";
  private waiter: Waiter | undefined;
  private exited = false;
  private exitReason = "";
  private queue: Promise<unknown> = Promise.resolve();
  private readonly exitPromise: Promise<void>;

  private constructor(scriptPath: string) {
    this.child = spawn(process.execPath, [scriptPath], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.onData(chunk));
    this.child.stderr.resume();
    this.child.stdin.on("error", () => {
      // A write after the engine died: reported through the exit handler.
    });
    this.exitPromise = new Promise((resolve) => {
      const onGone = (reason: string) => {
        if (this.exited) return;
        this.exited = true;
        this.exitReason = reason;
        this.fail(new EnvironmentError("chess.engine_exited", `Stockfish exited (${reason}).`));
        resolve();
      };
      this.child.on("exit", (code, signal) => onGone(signal ? `signal ${signal}` : `code ${code}`));
      this.child.on("error", (error) => onGone(`spawn error: ${error.message}`));
    });
  }

  /** Spawns the engine and completes the `uci`/`isready` handshake; throws an EnvironmentError on failure. */
  static async start(options: StockfishProcessOptions = {}): Promise<StockfishProcess> {
    const engine = new StockfishProcess(options.scriptPath ?? stockfishScriptPath());
    const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    try {
      engine.send("uci");
      await engine.waitFor((l) => l === "uciok", timeoutMs, "uci handshake");
      engine.send("isready");
      await engine.waitFor((l) => l === "readyok", timeoutMs, "isready");
    } catch (error) {
      await engine.kill();
      throw error;
    }
    return engine;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** False once the process has exited (crashed, killed or closed). */
  get alive(): boolean {
    return !this.exited;
  }

  /**
   * The engine's best move (UCI) for `fen` after `moves`, or null when the side to move has no move
   * (`bestmove (none)`). Each search starts with `ucinewgame` (cleared hash), so the answer depends only
   * on the position and the limits. Throws an EnvironmentError on timeout (the engine is then killed)
   * or when the engine is dead.
   */
  bestMove(
    fen: string,
    moves: ReadonlyArray<string> = [],
    limits: SearchLimits = {},
  ): Promise<string | null> {
    if (!FEN_RE.test(fen.trim())) {
      return Promise.reject(
        new UserError("chess.bad_fen", `Stockfish bestMove got an invalid FEN "${fen}".`),
      );
    }
    const badMove = moves.find((m) => !UCI_RE.test(m));
    if (badMove !== undefined) {
      return Promise.reject(
        new UserError("chess.bad_move", `Stockfish bestMove got "${badMove}", not a UCI move like e2e4.`),
      );
    }
    const run = this.queue.then(() => this.search(fen.trim(), moves, limits));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async search(
    fen: string,
    moves: ReadonlyArray<string>,
    limits: SearchLimits,
  ): Promise<string | null> {
    const timeoutMs = limits.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
    const go = [
      "go",
      ...(limits.depth !== undefined ? ["depth", String(limits.depth)] : []),
      ...(limits.movetimeMs !== undefined ? ["movetime", String(limits.movetimeMs)] : []),
    ];
    if (go.length === 1) go.push("depth", "10");
    try {
      this.send("ucinewgame");
      this.send("isready");
      await this.waitFor((l) => l === "readyok", timeoutMs, "isready");
      this.send(`position fen ${fen}${moves.length > 0 ? ` moves ${moves.join(" ")}` : ""}`);
      this.send(go.join(" "));
      const line = await this.waitFor((l) => l.startsWith("bestmove"), timeoutMs, go.join(" "));
      const move = line.split(/\s+/)[1];
      return move === undefined || move === "(none)" || !UCI_RE.test(move) ? null : move;
    } catch (error) {
      if (error instanceof EnvironmentError && error.code === "chess.engine_timeout") await this.kill();
      throw error;
    }
  }

  /** Asks the engine to quit, then kills it if it has not exited; idempotent. */
  async close(graceMs = 1_000): Promise<void> {
    if (this.exited) return this.exitPromise;
    this.send("quit");
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exitPromise;
    clearTimeout(timer);
  }

  /** Kills the process at once (SIGKILL); idempotent. */
  async kill(): Promise<void> {
    if (!this.exited) this.child.kill("SIGKILL");
    await this.exitPromise;
  }

  private send(command: string): void {
    if (this.exited) {
      throw new EnvironmentError(
        "chess.engine_exited",
        `Stockfish cannot take "${command}": the engine exited (${this.exitReason}).`,
      );
    }
    this.child.stdin.write(`${command}\n`);
  }

  private waitFor(match: (line: string) => boolean, timeoutMs: number, what: string): Promise<string> {
    if (this.exited) {
      return Promise.reject(
        new EnvironmentError("chess.engine_exited", `Stockfish exited (${this.exitReason}) before ${what}.`),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(
          new EnvironmentError(
            "chess.engine_timeout",
            `Stockfish did not answer "${what}" within ${timeoutMs} ms; the engine is restarted. ` +
              "Raise engine.timeoutMs or lower engine.depth.",
            { details: { timeoutMs, command: what } },
          ),
        );
      }, timeoutMs);
      this.waiter = { match, resolve, reject, timer };
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl = this.buffer.indexOf("\n");
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      const w = this.waiter;
      if (w?.match(line)) {
        this.waiter = undefined;
        clearTimeout(w.timer);
        w.resolve(line);
      }
      nl = this.buffer.indexOf("\n");
    }
  }

  private fail(error: Error): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    clearTimeout(w.timer);
    w.reject(error);
  }
}
