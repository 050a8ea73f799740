/** Names shared by crash.test.ts and its child crash-writer.ts. */
export const CRASH_RUN_ID = "crash-run";
export const JOURNAL_FILE = "journal.log";

export function crashStepRaw(trajectoryId: string, index: number): string {
  return `step ${index} of ${trajectoryId}`;
}
