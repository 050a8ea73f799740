import {
  type Call,
  type Fs,
  isPlainDir,
  isPlainFile,
  isWritable,
  type Runner,
} from "./fast-path-commands.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * The fast path's `mv` of several files into a directory (`fast-path.ts`): `mv SOURCE... DIR/` where
 * each SOURCE is a plain word or a glob whose `*`s are all in its last name (`inbox/*.png`,
 * `camera/2023-*`). A glob is expanded as the shell expands it with the default options: the names of
 * its directory that match the whole pattern (`*` any run of characters), a name starting with `.` only
 * when the pattern does; no match goes to just-bash (the shell would pass the word unchanged and `mv`
 * fail). Taken only when every source is a regular file, the names are distinct, DIR is a plain
 * directory and each file's place in it is free or a regular file that is not one of the sources; the
 * files are then moved as just-bash's `mv` moves them (the order does not change the result).
 */

/** A word with `*` in its last name only and plain characters elsewhere. */
export const GLOB_WORD = /^([A-Za-z0-9._,+=:@%-]+\/)*[A-Za-z0-9._,+=:@%-]*\*[A-Za-z0-9._,+=:@%*-]*$/;

/** The whole-name matcher of a glob of plain characters and `*` (any run of characters). */
export function globRegExp(pattern: string): RegExp {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "s");
}

/** The words `word` expands to in `cwd` (itself when it has no `*`), or undefined for no match. */
async function expand(fs: Fs, cwd: string, word: string): Promise<string[] | undefined> {
  if (!word.includes("*")) return [word];
  if (!GLOB_WORD.test(word) || word.startsWith("-")) return undefined;
  const at = word.lastIndexOf("/");
  const prefix = at === -1 ? "" : word.slice(0, at + 1);
  const pattern = word.slice(at + 1);
  const dir = fs.resolvePath(cwd, prefix === "" ? "." : prefix);
  if (isSystemPath(dir) || !(await isPlainDir(fs, dir))) return undefined;
  const re = globRegExp(pattern);
  const names = (await fs.readdir(dir)).filter(
    (n) => re.test(n) && (!n.startsWith(".") || pattern.startsWith(".")),
  );
  return names.length === 0 ? undefined : names.map((n) => `${prefix}${n}`);
}

/** `mv` with a glob or more than one source (one plain source and a destination is `copyOrMove`'s). */
export const moveMany: Runner = async (fs: Fs, call: Call, cwd: string) => {
  const to = call.args[call.args.length - 1];
  if (call.args.length < 2 || to === undefined || to.includes("*") || to.startsWith("-")) return undefined;
  const words: string[] = [];
  for (const word of call.args.slice(0, -1)) {
    if (word.startsWith("-") || word.endsWith("/")) return undefined;
    const expanded = await expand(fs, cwd, word);
    if (expanded === undefined) return undefined;
    words.push(...expanded);
  }
  const dest = fs.resolvePath(cwd, to);
  if (isSystemPath(dest) || !(await isPlainDir(fs, dest))) return undefined;
  const sources = words.map((w) => fs.resolvePath(cwd, w));
  const targets = words.map((w) => `${dest === "/" ? "" : dest}/${w.split("/").pop() as string}`);
  const all = new Set([...sources, ...targets]);
  if (all.size !== sources.length * 2) return undefined;
  for (const [i, source] of sources.entries()) {
    const target = targets[i] as string;
    if (isSystemPath(source) || !(await isPlainFile(fs, source)) || !(await isWritable(fs, target)))
      return undefined;
  }
  for (const [i, source] of sources.entries()) await fs.mv(source, targets[i] as string);
  return "";
};
