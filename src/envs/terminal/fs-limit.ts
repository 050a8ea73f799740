import { envAfter } from "./fast-path.ts";
import type { ShellOutcome } from "./sandbox.ts";

const FS_LIMIT_PATTERN = /^ENOSPC\b/;

/**
 * The outcome of a command whose write went past `maxFileSystemBytes`: just-bash lets that error of a
 * redirection escape `exec` (a throw, not a result), with whatever it wrote before the failing write
 * left in place. The command then fails like a write to a full disk: exit code 1, a stderr that names
 * the limit and the fix, the environment it started with (`?` set); undefined for any other error.
 */
export function fileSystemLimitOutcome(
  error: unknown,
  env: Record<string, string>,
  maxBytes: number,
): ShellOutcome | undefined {
  if (!(error instanceof Error) || !FS_LIMIT_PATTERN.test(error.message)) return undefined;
  return {
    stdout: "",
    stderr:
      `bash: write failed: no space left: the file system holds at most ${maxBytes} bytes ` +
      "(limits.maxFileSystemBytes); remove files or write less\n",
    exitCode: 1,
    env: envAfter(env, [["?", "1"]]),
    stoppedBy: "filesystem",
  };
}
