import { type Call, type Fs, isPlainDir, isPlainFile, kindOf } from "./fast-path-commands.ts";
import { globRegExp } from "./fast-path-glob.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * The fast path's `find` (`fast-path.ts`): `find PATH`, `find PATH -name GLOB` and `find PATH -name GLOB
 * -delete`, for PATH `.` or a relative path of plain components and a GLOB of plain characters and `*`
 * (quoted or not). It lists PATH (as written, a trailing `/` dropped) and every entry under it depth
 * first, each directory's names in code-unit order (just-bash's order), hidden names included; with
 * `-name` only the entries whose last name matches the whole GLOB (`*` matching any run, a leading `.`
 * too); `-delete` removes them, and is taken only when every one is a regular file. A symlink, a larger
 * tree, a system path or anything else goes to just-bash.
 */

/** A `find` operand: `.` or a relative path of plain components (an optional trailing `/`). */
const FIND_OPERAND = /^(\.|[A-Za-z0-9_,+=:@%][A-Za-z0-9._,+=:@%-]*(\/[A-Za-z0-9._,+=:@%-]+)*\/?)$/;
/** A `-name` pattern: plain characters and `*`, optionally single-quoted (no `?`, `[`, escapes). */
const NAME_GLOB = /^'?([A-Za-z0-9._,+=:@%*-]+)'?$/;
/** Larger trees go to just-bash. */
const MAX_FIND_ENTRIES = 2000;

/** The matcher of a `-name` glob (`*` any run of characters, the rest itself), or undefined. */
function nameMatcher(word: string): ((name: string) => boolean) | undefined {
  const m = NAME_GLOB.exec(word);
  if (m === null || word.startsWith("'") !== word.endsWith("'") || word === "'") return undefined;
  const glob = m[1] as string;
  if (!word.startsWith("'") && glob.includes("*")) return undefined; // an unquoted glob the shell expands
  const re = globRegExp(glob);
  return (name) => re.test(name);
}

/** The entries `find` lists from `start` (as written) at `root`, depth first, or undefined. */
async function walkTree(fs: Fs, root: string, start: string): Promise<Array<[string, string]> | undefined> {
  const out: Array<[string, string]> = [[start, root]];
  if (await isPlainDir(fs, root)) {
    const walk = async (dir: string, shown: string): Promise<boolean> => {
      for (const name of (await fs.readdir(dir)).sort()) {
        if (out.length >= MAX_FIND_ENTRIES) return false;
        const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
        out.push([`${shown}/${name}`, path]);
        const kind = await kindOf(fs, path);
        if (kind === null || kind === "symlink") return false;
        if (kind === "dir" && !(await walk(path, `${shown}/${name}`))) return false;
      }
      return true;
    };
    if (!(await walk(root, start))) return undefined;
  } else if (!(await isPlainFile(fs, root))) return undefined;
  return out;
}

export async function find(fs: Fs, call: Call, cwd: string): Promise<string | undefined> {
  const [arg, test, pattern, action] = call.args;
  if (arg === undefined || !FIND_OPERAND.test(arg) || call.stdin !== undefined) return undefined;
  let match: ((name: string) => boolean) | undefined;
  if (call.args.length > 1) {
    if (test !== "-name" || pattern === undefined || call.args.length > 4) return undefined;
    if (action !== undefined && action !== "-delete") return undefined;
    match = nameMatcher(pattern);
    if (match === undefined) return undefined;
  }
  const start = arg.length > 1 && arg.endsWith("/") ? arg.slice(0, -1) : arg;
  if (start !== "." && start.split("/").some((c) => c === "." || c === "..")) return undefined;
  const root = fs.resolvePath(cwd, start);
  if (root === "/" || isSystemPath(root)) return undefined;
  const listed = await walkTree(fs, root, start);
  if (listed === undefined) return undefined;
  const picked = match === undefined ? listed : listed.filter(([shown]) => match(lastName(shown)));
  call.listed = root;
  if (action === "-delete") {
    for (const [, path] of picked) if (path === root || (await kindOf(fs, path)) !== "file") return undefined;
    for (const [, path] of picked) await fs.rm(path);
    return "";
  }
  return picked.map(([shown]) => `${shown}\n`).join("");
}

function lastName(shown: string): string {
  return shown.slice(shown.lastIndexOf("/") + 1);
}
