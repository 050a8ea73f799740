import type { Bash } from "just-bash";
import { type Call, FILE_COMMANDS, type Fs, isPlainDir, type Runner } from "./fast-path-commands.ts";
import { TEXT_COMMANDS } from "./fast-path-text.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * An exact fast path for the commonest simple commands (`cat FILE...`, `cd DIR`, `pwd`, `ls [DIR]`,
 * `mkdir [-p] DIR...`, `echo WORDS [> | >> FILE]`, `touch NEWFILE...`, `cp`/`mv FILE DEST`, `rm [-r]
 * PATH...`, `find PATH`; `head`/`tail -n N`, `wc -l`, `sort` and `grep WORD` of one file), run over the
 * shell's own file system without just-bash's parser and interpreter. It answers only a command that
 * matches a strict grammar (plain words of `[A-Za-z0-9._/,+=:@%-]`, single-quoted words for echo, one
 * `>`/`>>` for echo; no globs, variables, pipes, other quotes or options than those named) and that it
 * can prove succeeds (files exist and are regular files, directories are directories, no symlinks on the
 * way, the command stubs are untouched): then the outcome (stdout, stderr, exit code, the environment
 * with its key order, the file system, the command hash table) is the one just-bash gives, by the same
 * file-system calls. Anything else returns `undefined` before changing anything, and just-bash runs it.
 * `test/envs/terminal/fast-path-differential.test.ts` compares both over generated commands and states.
 */

const FAST_COMMANDS = new Map<string, Runner>([...FILE_COMMANDS, ...TEXT_COMMANDS]);

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

/** Splits a command of the strict grammar; undefined for anything else. */
function parseCall(command: string): Call | undefined {
  if (command.length > 1000 || command.trim() !== command) return undefined;
  const tokens = tokenize(command);
  if (tokens === undefined) return undefined;
  const name = tokens[0] as string;
  let args = tokens.slice(1);
  let redirect: Call["redirect"];
  const op = args[args.length - 2];
  if (op === ">" || op === ">>") {
    if (name !== "echo") return undefined;
    const target = args[args.length - 1] as string;
    // just-bash's parser does not take a word with `=` as a redirection target.
    if (!WORD.test(target) || target.includes("=")) return undefined;
    redirect = { append: op === ">>", target };
    args = args.slice(0, -2);
  }
  for (const a of args) {
    if (WORD.test(a)) continue;
    if (name === "echo" && QUOTED.test(a)) continue;
    return undefined;
  }
  return { name, args, ...(redirect ? { redirect } : {}) };
}

/** The environment just-bash returns: `env` in its order, then each of `sets` (existing keys keep their place). */
export function envAfter(env: Record<string, string>, sets: Array<[string, string]>): Record<string, string> {
  const map = new Map(Object.entries(env));
  for (const [k, v] of sets) map.set(k, v);
  return Object.fromEntries(map);
}

/** Runs `command` on the fast path, or returns undefined (nothing changed) when it does not apply. */
export async function runFastPath(
  fs: Fs,
  state: FastPathState,
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<FastOutcome | undefined> {
  if (/awk|RANDOM|SECONDS/.test(command)) return undefined;
  const call = parseCall(command);
  if (call === undefined || env.PWD !== cwd || !cwd.startsWith("/")) return undefined;
  const ok = (stdout: string, sets: Array<[string, string]> = []): FastOutcome => ({
    stdout,
    stderr: "",
    exitCode: 0,
    env: envAfter(env, [...sets, ["?", "0"]]),
  });
  if (call.name === "cd") return cd(fs, state, call, cwd, env, ok);
  if (!FAST_COMMANDS.has(call.name) || env.PATH !== DEFAULT_PATH) return undefined;
  const stub = `/usr/bin/${call.name}`;
  const hashed = state.hashTable.get(call.name);
  if (hashed !== undefined && hashed !== stub) return undefined;
  const stdout = await (FAST_COMMANDS.get(call.name) as Runner)(fs, call, cwd);
  if (stdout === undefined) return undefined;
  state.hashTable.set(call.name, stub);
  return ok(stdout);
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
