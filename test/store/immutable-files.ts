import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE } from "../../src/store/index.ts";

/**
 * Sets or clears the immutable flag (`chattr`: even root cannot write) on a store's database files,
 * which makes a store read-only while it is open. Not the -shm file: SQLite maps it into memory, and a
 * mapping of an immutable file faults (SIGBUS). `unavailable()` clears the flag once and gives the
 * reason when `chattr` does not work on this file system.
 */
export function immutableStoreFiles(dir: string) {
  const files = readdirSync(dir)
    .filter((f) => f.startsWith(DATABASE_FILE) && !f.endsWith("-shm"))
    .map((f) => join(dir, f));
  const chattr = (flag: "+i" | "-i") => execFileSync("chattr", [flag, ...files], { stdio: "pipe" });
  return {
    chattr,
    /** undefined when `chattr` works here, else why not. */
    unavailable(): string | undefined {
      try {
        chattr("-i");
        return undefined;
      } catch (error) {
        return `chattr is not available on this file system (${String(error)})`;
      }
    },
  };
}
