import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { compiledBin } from "./compiled-bin.ts";

const BIN = join(import.meta.dirname, "..", "..", "bin", "rehearsal.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `rehearsal` bin in a child process. */
export function runCli(args: string[], options: { cwd?: string; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    encoding: "utf8",
    input: options.input ?? "",
    env: { ...process.env, CI: "1" },
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function json<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\n--- stderr ---\n${r.stderr}`);
  }
}

/** A writable that keeps what is written to it. */
function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { chunks, stream, text: () => chunks.join("") };
}

/** Replaces `stream.write` with one that appends to `chunks`; returns the undo. */
function divert(stream: NodeJS.WriteStream, chunks: string[]): () => void {
  const original = stream.write;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = original;
  };
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs the CLI's `main()` in this process, capturing stdout, stderr and the exit code: what the bin
 * would print, at a fraction of a process start. Everything written to the process's own stdout and
 * stderr during the call is captured too (a few writers do not take `main`'s streams: the stdout of
 * `export ... ` without `--out` and the runtime's log lines), the environment holds `CI=1` and `env`
 * for the call only, and a call that leaves a signal handler, an exit code or another working
 * directory behind fails the test: calls cannot leak into each other.
 */
export async function runMain(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  const { main } = await import("../../src/cli/main.ts");
  const stdout = sink();
  const stderr = sink();
  const env = { CI: "1", ...options.env };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const listeners = SIGNALS.map((s) => process.listenerCount(s));
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  Object.assign(process.env, env);
  const undo = [divert(process.stdout, stdout.chunks), divert(process.stderr, stderr.chunks)];
  let code: number;
  try {
    code = await main(["node", "rehearsal", ...args], { stdout: stdout.stream, stderr: stderr.stream });
  } finally {
    for (const u of undo) u();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  const leaks = [
    ...SIGNALS.filter((s, i) => process.listenerCount(s) !== listeners[i]).map((s) => `${s} listeners`),
    ...(process.cwd() !== cwd ? ["the working directory"] : []),
    ...(process.exitCode !== exitCode ? ["process.exitCode"] : []),
  ];
  if (leaks.length > 0) throw new Error(`rehearsal ${args.join(" ")} left ${leaks.join(", ")} changed`);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

export interface SpawnedCli {
  child: import("node:child_process").ChildProcess;
  /** Resolves when the process exits. */
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

/**
 * Starts the real bin asynchronously (for signals): the caller decides when to signal it. The bin runs
 * in the layout of an installed package, from JavaScript compiled once per content of the sources
 * (`compiled-bin.ts`): the same code and the same process as the checkout's bin, without compiling the
 * sources again in each child.
 */
export async function spawnCli(args: string[], env: Record<string, string> = {}): Promise<SpawnedCli> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [await compiledBin(), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "1", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  // `close`, not `exit`: the process may exit before its output has been read to the end.
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
  return { child, done, stderr: () => stderr };
}

/** Polls `condition` every 50 ms (no deadline of its own: the test's timeout bounds it). */
export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 50));
}

/** Runs `fn` on the store in `storeDir`, opened for the call and closed after it. */
export function withStore<T>(storeDir: string, fn: (s: RunStore) => T): T {
  const s = openSqliteStore({ dir: storeDir });
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

/** `count` of the newest run in a child's store; 0 until the child has created the store and a run. */
export function newestRunCount(storeDir: string, count: (s: RunStore, runId: string) => number): number {
  // Never open (and so create) the store before the child has: that would race its migration.
  if (!existsSync(join(storeDir, "rehearsal.db"))) return 0;
  try {
    return withStore(storeDir, (s) => {
      const run = s.listRuns()[0];
      return run ? count(s, run.id) : 0;
    });
  } catch {
    return 0; // the child is still migrating it
  }
}
