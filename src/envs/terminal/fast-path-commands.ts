import type { InMemoryFs } from "just-bash";
import { FIXED_DATE, isSystemPath } from "./system-paths.ts";

/**
 * The commands of the terminal's fast path (`fast-path.ts`): each checks that it will succeed before
 * changing anything (returning undefined otherwise, so just-bash runs the command) and then makes the
 * file-system calls just-bash's own command makes; each returns its stdout.
 */

export type Fs = InMemoryFs;

/** One parsed command of the fast path's grammar (quoted words keep their quotes). */
export interface Call {
  name: string;
  args: string[];
  redirect?: { append: boolean; target: string };
}

export type Runner = (fs: Fs, call: Call, cwd: string) => Promise<string | undefined>;

/** Larger reads go to just-bash (its input and output limits are far above this). */
const MAX_CAT_BYTES = 64 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

async function lstatOrNull(fs: Fs, path: string) {
  try {
    return await fs.lstat(path);
  } catch {
    return null;
  }
}

/**
 * True when `path` is an existing directory. The fast path runs only on a file system that has never
 * held a symlink outside the system roots (the sandbox turns it off for good at the first link), and
 * every path it takes is outside them, so no path it resolves goes through a symlink.
 */
export async function isPlainDir(fs: Fs, path: string): Promise<boolean> {
  const st = await lstatOrNull(fs, path);
  return st?.isDirectory === true && !st.isSymbolicLink;
}

/** True when `path` is an existing regular file whose directory is a plain directory. */
export async function isPlainFile(fs: Fs, path: string): Promise<boolean> {
  const st = await lstatOrNull(fs, path);
  return st?.isFile === true && !st.isSymbolicLink && (await isPlainDir(fs, parentOf(path)));
}

export function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}

/** A path that is safe to create: absent, not a system path, in a plain directory. */
async function isFreeSlot(fs: Fs, path: string): Promise<boolean> {
  return (
    !isSystemPath(path) && (await lstatOrNull(fs, path)) === null && (await isPlainDir(fs, parentOf(path)))
  );
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
      if (call.args.length === 0 || call.args.some((a) => a.startsWith("-"))) return undefined;
      const parts: Uint8Array[] = [];
      let total = 0;
      for (const a of call.args) {
        const path = fs.resolvePath(cwd, a);
        if (isSystemPath(path) || !(await isPlainFile(fs, path))) return undefined;
        const bytes = await fs.readFileBuffer(path);
        total += bytes.length;
        if (total > MAX_CAT_BYTES) return undefined;
        parts.push(bytes);
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
    async (fs, call, cwd) => {
      const words = call.args.map((a) => (a.startsWith("'") ? a.slice(1, -1) : a));
      if (words[0]?.startsWith("-")) return undefined;
      const text = `${words.join(" ")}\n`;
      if (call.redirect === undefined) return text;
      const path = fs.resolvePath(cwd, call.redirect.target);
      if (isSystemPath(path)) return undefined;
      const exists = await isPlainFile(fs, path);
      if (!exists && !(await isFreeSlot(fs, path))) return undefined;
      if (call.redirect.append) await fs.appendFile(path, text);
      else await fs.writeFile(path, text);
      return "";
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
  ["find", find],
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

/** A `find` operand: `.` or a relative path of plain components (an optional trailing `/`). */
const FIND_OPERAND = /^(\.|[A-Za-z0-9_,+=:@%][A-Za-z0-9._,+=:@%-]*(\/[A-Za-z0-9._,+=:@%-]+)*\/?)$/;
/** Larger trees go to just-bash. */
const MAX_FIND_ENTRIES = 2000;

/**
 * `find PATH` with no expression: PATH (as written, a trailing `/` dropped), then every entry under it
 * depth first, each directory's names in code-unit order (just-bash's order), hidden names included.
 */
async function find(fs: Fs, call: Call, cwd: string): Promise<string | undefined> {
  const arg = call.args[0];
  if (call.args.length !== 1 || arg === undefined || !FIND_OPERAND.test(arg)) return undefined;
  const start = arg.length > 1 && arg.endsWith("/") ? arg.slice(0, -1) : arg;
  if (start !== "." && start.split("/").some((c) => c === "." || c === "..")) return undefined;
  const root = fs.resolvePath(cwd, start);
  if (root === "/" || isSystemPath(root)) return undefined;
  const out = [start];
  if (await isPlainDir(fs, root)) {
    const walk = async (dir: string, shown: string): Promise<boolean> => {
      for (const name of (await fs.readdir(dir)).sort()) {
        if (out.length >= MAX_FIND_ENTRIES) return false;
        const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
        out.push(`${shown}/${name}`);
        const st = await lstatOrNull(fs, path);
        if (st === null || st.isSymbolicLink) return false;
        if (st.isDirectory && !(await walk(path, `${shown}/${name}`))) return false;
      }
      return true;
    };
    if (!(await walk(root, start))) return undefined;
  } else if (!(await isPlainFile(fs, root))) return undefined;
  return out.map((p) => `${p}\n`).join("");
}

/** `mkdir -p` succeeds: every existing component is a plain directory, the rest can be created. */
async function isPlainPrefix(fs: Fs, path: string): Promise<boolean> {
  let at = path;
  while (at !== "/") {
    const st = await lstatOrNull(fs, at);
    if (st !== null) return st.isDirectory && !st.isSymbolicLink && (await isPlainDir(fs, at));
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
