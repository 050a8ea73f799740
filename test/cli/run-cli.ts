import { spawnSync } from "node:child_process";
import { join } from "node:path";

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
