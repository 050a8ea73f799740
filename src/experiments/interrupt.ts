import { renameSync, writeFileSync } from "node:fs";
import { z } from "zod";

/**
 * The one stop mechanism of the `rehearsal experiment …` commands. The CLI's signal policy
 * (`src/runner/signals.ts`: the first SIGINT/SIGTERM aborts an `AbortSignal`) reaches an experiment as
 * `signal`; the experiment checks it between its parts (a trained and scored mix, an arm, a family) and
 * passes it to the inner runs that take one (episode loops, searches, GRPO), keeps the parts that
 * completed, and writes its results file with `status: "interrupted"`. While it runs, the file is
 * rewritten after each part with `status: "running"`, so even a killed process leaves its completed
 * parts. The CLI then prints `interruptedLine` and exits 130 (SIGINT) / 143 (SIGTERM).
 */
export const ExperimentStatusSchema = z.enum(["running", "interrupted", "complete"]);
export type ExperimentStatus = z.infer<typeof ExperimentStatusSchema>;

/** Whether a stop was requested. */
export function stopRequested(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Runs one part unless a stop was requested: undefined when the signal aborted before it started or
 * while it ran (an error thrown because of the stop is the stop, not a failure; the part is dropped).
 */
export async function unlessStopped<T>(
  signal: AbortSignal | undefined,
  part: () => Promise<T>,
): Promise<T | undefined> {
  if (stopRequested(signal)) return undefined;
  try {
    const result = await part();
    return stopRequested(signal) ? undefined : result;
  } catch (e) {
    if (stopRequested(signal)) return undefined;
    throw e;
  }
}

/** Writes a JSON file whole or not at all (a temporary file renamed over it): a stop never leaves half a file. */
export function writeJsonFile(path: string, value: unknown): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

/** The one line the CLI prints after an interrupted experiment: what was kept, where, and how to go on. */
export function interruptedLine(command: string, kept: string, path: string): string {
  return `${command} interrupted: kept ${kept} in ${path} (status "interrupted"); run the same command again to start over`;
}
