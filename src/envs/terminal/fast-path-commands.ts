import type { FixedClockFs } from "./fixed-clock-fs.ts";
import { FIXED_DATE, isSystemPath } from "./system-paths.ts";

/**
 * The commands of the terminal's fast path (`fast-path.ts`): each checks that it will succeed before
 * changing anything (returning undefined otherwise, so just-bash runs the command) and then makes the
 * file-system calls just-bash's own command makes; each returns its stdout.
 */

export type Fs = FixedClockFs;

/** One parsed command of the fast path's grammar (quoted words keep their quotes). */
export interface Call {
  name: string;
  args: string[];
  /** The previous command's stdout, for a command after `|` (it then takes no file operand). */
  stdin?: string;
  /** The paths the command read (a redirection may not write one of them). */
  reads?: string[];
  /** The tree a `find` listed (a redirection may not write into it). */
  listed?: string;
}

export type Runner = (fs: Fs, call: Call, cwd: string) => Promise<string | undefined>;

/** Larger reads go to just-bash (its input and output limits are far above this). */
const MAX_CAT_BYTES = 64 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

export type Kind = "file" | "dir" | "symlink" | null;

/** What `lstat` says `path` is (null: nothing), read straight from the stored map when it can be. */
export async function kindOf(fs: Fs, path: string): Promise<Kind> {
  const stored = fs.kindAt(path);
  if (stored !== undefined) return stored;
  try {
    const st = await fs.lstat(path);
    return st.isSymbolicLink ? "symlink" : st.isDirectory ? "dir" : st.isFile ? "file" : null;
  } catch {
    return null;
  }
}

/** The bytes of the regular file `path` (the stored array itself when it can be read directly). */
export async function fileBytes(fs: Fs, path: string): Promise<Uint8Array> {
  return fs.contentAt(path) ?? (await fs.readFileBuffer(path));
}

/**
 * True when `path` is an existing directory. The fast path runs only on a file system that has never
 * held a symlink outside the system roots (the sandbox turns it off for good at the first link), and
 * every path it takes is outside them, so no path it resolves goes through a symlink.
 */
export async function isPlainDir(fs: Fs, path: string): Promise<boolean> {
  return (await kindOf(fs, path)) === "dir";
}

/** True when `path` is an existing regular file whose directory is a plain directory. */
export async function isPlainFile(fs: Fs, path: string): Promise<boolean> {
  return (await kindOf(fs, path)) === "file" && (await isPlainDir(fs, parentOf(path)));
}

export function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}

/** A path that is safe to create: absent, not a system path, in a plain directory. */
export async function isFreeSlot(fs: Fs, path: string): Promise<boolean> {
  return !isSystemPath(path) && (await kindOf(fs, path)) === null && (await isPlainDir(fs, parentOf(path)));
}

/** A target the fast path writes: a regular file or a new name in a plain directory, not a system path. */
export async function isWritable(fs: Fs, path: string): Promise<boolean> {
  return !isSystemPath(path) && ((await isPlainFile(fs, path)) || (await isFreeSlot(fs, path)));
}

function distinct(paths: string[]): boolean {
  return new Set(paths).size === paths.length;
}

/**
 * `NAME [FLAG] OPERAND...` (`mkdir [-p]`, `rm [-r]`): the operands resolved (none repeated, no system
 * path, no other option), every one checked by `ok` before any is changed by `act`, in order.
 */
function eachOperand(
  allowed: string,
  ok: (fs: Fs, path: string, flag: boolean, paths: string[]) => Promise<boolean>,
  act: (fs: Fs, path: string, flag: boolean) => Promise<void>,
): Runner {
  return async (fs, call, cwd) => {
    const flag = call.args[0] === allowed;
    const names = flag ? call.args.slice(1) : call.args;
    if (names.length === 0 || names.some((a) => a.startsWith("-"))) return undefined;
    const paths = names.map((a) => fs.resolvePath(cwd, a));
    if (!distinct(paths) || paths.some(isSystemPath)) return undefined;
    for (const path of paths) if (!(await ok(fs, path, flag, paths))) return undefined;
    for (const path of paths) await act(fs, path, flag);
    return "";
  };
}

/** The commands that work on paths (the text commands are in `fast-path-text.ts`). */
export const FILE_COMMANDS = new Map<string, Runner>([
  ["pwd", async (_fs, call, cwd) => (call.args.length === 0 ? `${cwd}\n` : undefined)],
  [
    "cat",
    async (fs, call, cwd) => {
      if (call.args.length === 0) return call.stdin;
      if (call.stdin !== undefined || call.args.some((a) => a.startsWith("-"))) return undefined;
      const parts: Uint8Array[] = [];
      let total = 0;
      for (const a of call.args) {
        const path = fs.resolvePath(cwd, a);
        if (isSystemPath(path) || !(await isPlainFile(fs, path))) return undefined;
        const bytes = await fileBytes(fs, path);
        total += bytes.length;
        if (total > MAX_CAT_BYTES) return undefined;
        parts.push(bytes);
        call.reads?.push(path);
      }
      return decodeSmall(Buffer.concat(parts));
    },
  ],
  [
    "mkdir",
    eachOperand(
      "-p",
      async (fs, path, recursive, paths) => {
        // Without -p, an argument inside another argument depends on the order: left to just-bash.
        if (!recursive && paths.some((p) => path.startsWith(`${p}/`))) return false;
        return recursive ? isPlainPrefix(fs, path) : isFreeSlot(fs, path);
      },
      (fs, path, recursive) => fs.mkdir(path, { recursive }),
    ),
  ],
  [
    "echo",
    async (_fs, call) => {
      const words = call.args.map((a) => (a.startsWith("'") ? a.slice(1, -1) : a));
      if (words[0]?.startsWith("-")) return undefined;
      return `${words.join(" ")}\n`;
    },
  ],
  [
    "touch",
    async (fs, call, cwd) => {
      if (call.args.length === 0 || call.args.some((a) => a.startsWith("-"))) return undefined;
      const paths = call.args.map((a) => fs.resolvePath(cwd, a));
      if (!distinct(paths)) return undefined;
      for (const path of paths) if (!(await isFreeSlot(fs, path))) return undefined;
      for (const path of paths) {
        await fs.writeFile(path, "");
        // just-bash stamps the current time; this file system reports every time as the fixed clock.
        await fs.utimes(path, FIXED_DATE, FIXED_DATE);
      }
      return "";
    },
  ],
  [
    "ls",
    async (fs, call, cwd) => {
      const arg = call.args[0];
      if (call.args.length > 1 || arg?.startsWith("-")) return undefined;
      const path = arg === undefined ? cwd : fs.resolvePath(cwd, arg);
      if (isSystemPath(path) || !(await isPlainDir(fs, path))) return undefined;
      const names = (await fs.readdir(path)).filter((n) => !n.startsWith(".")).sort();
      return names.map((n) => `${n}\n`).join("");
    },
  ],
  ["cp", (fs, call, cwd) => copyOrMove(fs, call, cwd, (from, to) => fs.cp(from, to, { recursive: false }))],
  ["mv", (fs, call, cwd) => copyOrMove(fs, call, cwd, (from, to) => fs.mv(from, to))],
  [
    "rm",
    eachOperand(
      "-r",
      async (fs, path, recursive, paths) => {
        if (recursive && paths.some((p) => path.startsWith(`${p}/`) || p === "/")) return false;
        return (await isPlainFile(fs, path)) || (recursive && (await isPlainDir(fs, path)));
      },
      (fs, path, recursive) => fs.rm(path, { recursive, force: false }),
    ),
  ],
]);

/** `mkdir -p` succeeds: every existing component is a plain directory, the rest can be created. */
async function isPlainPrefix(fs: Fs, path: string): Promise<boolean> {
  let at = path;
  while (at !== "/") {
    const kind = await kindOf(fs, at);
    if (kind !== null) return kind === "dir";
    at = parentOf(at);
  }
  return true;
}

/**
 * `cp FILE DEST` / `mv FILE DEST` for a regular file: into DEST when it is a directory (under the
 * source's last name), else onto DEST (an existing regular file, or a new name in a plain directory);
 * `op` is the file-system call just-bash's command makes.
 */
async function copyOrMove(
  fs: Fs,
  call: Call,
  cwd: string,
  op: (from: string, to: string) => Promise<void>,
): Promise<string | undefined> {
  const [from, to] = call.args;
  if (call.args.length !== 2 || from === undefined || to === undefined) return undefined;
  if (from.startsWith("-") || to.startsWith("-") || from.endsWith("/")) return undefined;
  const source = fs.resolvePath(cwd, from);
  const dest = fs.resolvePath(cwd, to);
  if (isSystemPath(source) || isSystemPath(dest) || !(await isPlainFile(fs, source))) return undefined;
  let target = dest;
  if (await isPlainDir(fs, dest)) {
    const base = from.split("/").pop() as string;
    target = dest === "/" ? `/${base}` : `${dest}/${base}`;
  } else if (to.endsWith("/")) return undefined;
  if (target === source || isSystemPath(target)) return undefined;
  if (!(await isPlainFile(fs, target)) && !(await isFreeSlot(fs, target))) return undefined;
  await op(source, target);
  return "";
}

/** The text of `bytes` when they are valid UTF-8 and small (just-bash's output decoding then gives it). */
export function decodeSmall(bytes: Uint8Array): string | undefined {
  if (bytes.length > MAX_CAT_BYTES) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
