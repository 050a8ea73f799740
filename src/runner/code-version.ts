import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Each package root's version, read once per process. */
const known = new Map<string, string>();

/**
 * `rehearsal@<version>+<git short sha>`. The sha only when the package root is itself a git checkout
 * (it holds its own `.git`): an installed package inside a user's git project must not report that
 * project's commit. `root` is the package folder (default: this package's). Read once per root and
 * process: the code a process runs is what it loaded, not a commit made while it runs (a server that
 * creates many runs also no longer starts `git` for each).
 */
export function codeVersion(root: string = packageRoot): string {
  let version = known.get(root);
  if (version === undefined) {
    version = readCodeVersion(root);
    known.set(root, version);
  }
  return version;
}

function readCodeVersion(root: string): string {
  const version = packageVersion(root);
  if (!existsSync(join(root, ".git"))) return `rehearsal@${version}`;
  let sha = "";
  try {
    sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // A .git without a readable HEAD (no commit yet, git missing): the version alone.
  }
  return `rehearsal@${version}${sha ? `+${sha}` : ""}`;
}

export function packageVersion(root: string = packageRoot): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}
