import type { Bash } from "just-bash";
import {
  type Call,
  FILE_COMMANDS,
  type Fs,
  isPlainDir,
  isWritable,
  type Runner,
} from "./fast-path-commands.ts";
import { find } from "./fast-path-find.ts";
import { GLOB_WORD, moveMany } from "./fast-path-glob.ts";
import { TEXT_COMMANDS } from "./fast-path-text.ts";
import { isUnder } from "./fixed-clock-fs.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * An exact fast path for the commonest simple commands (`cat FILE...`, `cd DIR`, `pwd`, `ls [DIR]`,
 * `mkdir [-p] DIR...`, `echo WORDS`, `touch NEWFILE...`, `cp`/`mv FILE DEST`, `mv SOURCE-OR-GLOB... DIR`,
 * `rm [-r] PATH...`, `find PATH [-name GLOB [-delete]]`; the text commands of `fast-path-text.ts`), of
 * pipelines of readers (`tail -n +2 f | sort -t, -k1,1`) and of a final `>`/`>>` after echo, a reader or
 * a pipeline, run over the shell's own file system without just-bash's parser and interpreter. It
 * answers only a command line that matches a strict grammar (plain words of `[A-Za-z0-9._/,+=:@%-]`,
 * single-quoted words for echo, grep and find, `*` only in mv sources; no variables, other quotes,
 * `;`/`&&` or options than those named) and that it can prove succeeds (files exist and are regular
 * files, directories are directories, no symlinks on the way, the command stubs are untouched, a
 * redirection target is neither read nor listed): then the outcome (stdout, stderr, exit code, the
 * environment with its key order, the file system, the command hash table) is the one just-bash gives,
 * by the same file-system calls. Anything else returns `undefined` before changing anything, and
 * just-bash runs it. `test/envs/terminal/fast-path-differential.test.ts` compares both over generated
 * commands and states.
 */

const moveOne = FILE_COMMANDS.get("mv") as Runner;
const FAST_COMMANDS = new Map<string, Runner>([
  ...FILE_COMMANDS,
  ...TEXT_COMMANDS,
  ["find", find],
  // One plain source and a destination, else a glob or several sources into a directory.
  [
    "mv",
    (fs, call, cwd) =>
      (call.args.length === 2 && !call.args.some((a) => a.includes("*")) ? moveOne : moveMany)(fs, call, cwd),
  ],
]);

/** The parts of just-bash's shell state that persist between commands and that the fast path reads. */
export interface FastPathState {
  hashTable: Map<string, string>;
  readonlyVars: Set<string>;
  shoptOptions: Record<string, boolean>;
}

export interface FastOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  env: Record<string, string>;
}

const WORD = /^[A-Za-z0-9._/,+=:@%-]+$/;
const QUOTED = /^'[ !"#$%&(-[\]-~]*'$/;
const DEFAULT_PATH = "/usr/bin:/bin";
/** A plain word, a single-quoted word (with spaces) or `>`/`>>`, after the spaces that separate it. */
const TOKEN = / *('[ !"#$%&(-[\]-~]*'|[^ ']+)/y;

/** The words of `command` (quoted ones keep their quotes), or undefined when it is not plain words. */
function tokenize(command: string): string[] | undefined {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < command.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(command);
    if (m === null || (tokens.length > 0 && command[at] !== " ")) return undefined;
    tokens.push(m[1] as string);
  }
  return tokens;
}

/** Commands that may take single-quoted words (each reads them itself). */
const QUOTING = new Set(["echo", "grep", "find"]);
/** Commands that may start a pipeline or write to a redirection (they only read). */
const READERS = new Set(["cat", "head", "tail", "wc", "sort", "grep", "cut", "find"]);
/** Commands that may come after `|` (they read their stdin). */
const FILTERS = new Set(["cat", "head", "tail", "wc", "sort", "grep", "cut"]);

/** A parsed command line: one command or a pipeline, with an optional `>`/`>>` after the last one. */
interface Line {
  calls: Call[];
  redirect?: { append: boolean; target: string };
}

/** Splits a command line of the strict grammar; undefined for anything else. */
function parseLine(command: string): Line | undefined {
  if (command.length > 1000 || command.trim() !== command) return undefined;
  const tokens = tokenize(command);
  if (tokens === undefined || tokens.length === 0) return undefined;
  let redirect: Line["redirect"];
  const op = tokens[tokens.length - 2];
  if (op === ">" || op === ">>") {
    const target = tokens[tokens.length - 1] as string;
    // just-bash's parser does not take a word with `=` as a redirection target.
    if (!WORD.test(target) || target.includes("=")) return undefined;
    redirect = { append: op === ">>", target };
    tokens.length -= 2;
  }
  const calls: Call[] = [];
  let words: string[] = [];
  for (const token of [...tokens, "|"]) {
    if (token !== "|") {
      words.push(token);
      continue;
    }
    const [name, ...args] = words;
    if (name === undefined || !WORD.test(name)) return undefined;
    for (const a of args) {
      if (WORD.test(a) || (QUOTING.has(name) && QUOTED.test(a)) || (name === "mv" && GLOB_WORD.test(a)))
        continue;
      return undefined;
    }
    calls.push({ name, args });
    words = [];
  }
  const piped = calls.length > 1;
  for (const [i, call] of calls.entries()) {
    if ((piped || redirect) && !READERS.has(call.name) && !(call.name === "echo" && !piped)) return undefined;
    if (i > 0 && !FILTERS.has(call.name)) return undefined;
  }
  // `find -delete` writes as it runs: only alone, where nothing after it can still decline the line.
  if ((piped || redirect) && calls.some((c) => c.args.includes("-delete"))) return undefined;
  return { calls, ...(redirect ? { redirect } : {}) };
}

/** The environment just-bash returns: `env` in its order, then each of `sets` (existing keys keep their place). */
export function envAfter(env: Record<string, string>, sets: Array<[string, string]>): Record<string, string> {
  // A copy keeps `env`'s order and a new key goes last, as a Map would (the keys set are fixed names).
  const out = { ...env };
  for (const [k, v] of sets) out[k] = v;
  return out;
}

/** Runs `command` on the fast path, or returns undefined (nothing changed) when it does not apply. */
export async function runFastPath(
  fs: Fs,
  state: FastPathState,
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<FastOutcome | undefined> {
  if (/awk|RANDOM|SECONDS/.test(command) || (command.includes("*") && env.GLOBIGNORE !== undefined))
    return undefined;
  const line = parseLine(command);
  if (line === undefined || env.PWD !== cwd || !cwd.startsWith("/")) return undefined;
  const ok = (stdout: string, sets: Array<[string, string]> = []): FastOutcome => ({
    stdout,
    stderr: "",
    exitCode: 0,
    env: envAfter(env, [...sets, ["?", "0"]]),
  });
  const first = line.calls[0] as Call;
  if (first.name === "cd" && line.calls.length === 1 && !line.redirect)
    return cd(fs, state, first, cwd, env, ok);
  if (env.PATH !== DEFAULT_PATH) return undefined;
  for (const call of line.calls) {
    const hashed = state.hashTable.get(call.name);
    if (!FAST_COMMANDS.has(call.name) || (hashed !== undefined && hashed !== `/usr/bin/${call.name}`))
      return undefined;
  }
  const target = line.redirect ? fs.resolvePath(cwd, line.redirect.target) : undefined;
  if (target !== undefined && !(await isWritable(fs, target))) return undefined;
  // Every command of a pipeline only reads; a redirection is written once all have succeeded.
  let stdout: string | undefined;
  const reads: string[] = [];
  for (const [i, call] of line.calls.entries()) {
    if (i > 0 && stdout !== undefined) call.stdin = stdout;
    call.reads = reads;
    stdout = await (FAST_COMMANDS.get(call.name) as Runner)(fs, call, cwd);
    if (stdout === undefined) return undefined;
    // The shell creates (or empties) the target before the commands run: none may read or list it.
    if (
      target !== undefined &&
      (reads.includes(target) || (call.listed && isUnder(target, new Set([call.listed]))))
    )
      return undefined;
  }
  if (stdout === undefined) return undefined;
  for (const call of line.calls) state.hashTable.set(call.name, `/usr/bin/${call.name}`);
  if (target === undefined || line.redirect === undefined) return ok(stdout);
  if (line.redirect.append) await fs.appendFile(target, stdout);
  else await fs.writeFile(target, stdout);
  return ok("");
}

async function cd(
  fs: Fs,
  state: FastPathState,
  call: Call,
  cwd: string,
  env: Record<string, string>,
  ok: (stdout: string, sets: Array<[string, string]>) => FastOutcome,
): Promise<FastOutcome | undefined> {
  const arg = call.args[0];
  if (call.args.length !== 1 || arg === undefined || arg.startsWith("-")) return undefined;
  if (env.CDPATH !== undefined || state.readonlyVars.has("PWD") || state.readonlyVars.has("OLDPWD"))
    return undefined;
  const target = fs.resolvePath(cwd, arg);
  if (isSystemPath(target) || !(await isPlainDir(fs, target))) return undefined;
  return ok("", [
    ["PWD", target],
    ["OLDPWD", cwd],
  ]);
}

/**
 * just-bash's shell state that persists between `exec` calls (read, and the hash table written, by the
 * fast path), or undefined when its shape is not the expected one (then every command goes to just-bash).
 */
export function fastPathStateOf(bash: Bash): FastPathState | undefined {
  const state = (bash as unknown as { state?: Partial<FastPathState> }).state;
  if (
    state?.hashTable instanceof Map &&
    state.readonlyVars instanceof Set &&
    typeof state.shoptOptions === "object" &&
    state.shoptOptions !== null
  )
    return state as FastPathState;
  return undefined;
}

/** The persistent settings a command could change for later ones (readonly names, shopt options). */
export interface Baseline {
  readonlyVars: string[];
  shopt: Array<[string, boolean]>;
}

export function baselineOf(state: FastPathState): Baseline {
  return { readonlyVars: [...state.readonlyVars], shopt: Object.entries(state.shoptOptions) };
}

/** True while those settings are still as the shell was built (checked before each fast command). */
export function unchanged(state: FastPathState, base: Baseline): boolean {
  if (state.readonlyVars.size !== base.readonlyVars.length) return false;
  for (const name of base.readonlyVars) if (!state.readonlyVars.has(name)) return false;
  const shopt = state.shoptOptions;
  if (Object.keys(shopt).length !== base.shopt.length) return false;
  for (const [key, value] of base.shopt) if (shopt[key] !== value) return false;
  return true;
}
