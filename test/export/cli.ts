import { main } from "../../src/cli/main.ts";

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI's `main()` in this process and captures what it writes to stdout and stderr (a child
 * process would prove nothing more for commands that only read the store and write files).
 */
export async function cliInProcess(args: string[]): Promise<InProcessResult> {
  const captured = { stdout: "", stderr: "" };
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture =
    (key: "stdout" | "stderr") =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      captured[key] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      done?.();
      return true;
    };
  process.stdout.write = capture("stdout") as typeof process.stdout.write;
  process.stderr.write = capture("stderr") as typeof process.stderr.write;
  try {
    const code = await main(["node", "rehearsal", ...args]);
    return { code, ...captured };
  } finally {
    process.stdout.write = originals.stdout;
    process.stderr.write = originals.stderr;
  }
}
