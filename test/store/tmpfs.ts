import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A small tmpfs of its own (a real full disk, a real read-only mount), or why there cannot be one. */
export interface Tmpfs {
  dir: string;
  remountReadOnly(): void;
  unmount(): void;
}

export function mountTmpfs(sizeKiB: number): Tmpfs | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const reason = (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
    return { skip: `cannot mount a tmpfs here (${reason}); needs root and a kernel that allows it` };
  }
  return {
    dir,
    remountReadOnly() {
      execFileSync("mount", ["-o", "remount,ro", dir], { stdio: "pipe" });
    },
    unmount() {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
