import {
  type Call,
  decodeSmall,
  type Fs,
  fileBytes,
  isPlainFile,
  type Runner,
} from "./fast-path-commands.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * The fast path's commands that read one text (a file operand, or the previous command's stdout after
 * `|`) and print part of it (`fast-path.ts`): `head -N` / `head -n N`, `tail -N` / `tail -n N` / `tail -n
 * +N`, `wc -l`, `sort`, `sort -tC -kN,N`, `grep PATTERN`, `grep -c PATTERN` (PATTERN a fixed word, or a
 * single-quoted fixed text, optionally anchored by a leading `^` or a trailing `$`) and `cut -dC -fN`.
 * A file operand must be one regular UTF-8 file of at most 64 KiB without NUL bytes, outside the system
 * roots; the text of `cut` must be ASCII (just-bash writes its output as bytes). Each gives the output
 * of just-bash's own command; anything else (other options, several files, regular-expression
 * characters, a `grep` that finds nothing and so exits 1) returns undefined and runs in just-bash.
 */

/**
 * The text a command reads: its single file operand `name` (the path is noted in `call.reads`), or
 * its stdin when it has no operand; undefined when the fast path does not read it.
 */
async function readText(
  fs: Fs,
  call: Call,
  cwd: string,
  name: string | undefined,
): Promise<string | undefined> {
  if (name === undefined) return call.stdin;
  if (name.startsWith("-") || name.startsWith("'") || call.stdin !== undefined) return undefined;
  const path = fs.resolvePath(cwd, name);
  if (isSystemPath(path) || !(await isPlainFile(fs, path))) return undefined;
  const text = decodeSmall(await fileBytes(fs, path));
  if (text === undefined || text.includes("\0")) return undefined;
  call.reads?.push(path);
  return text;
}

/** The count of `-N` / `-n N` / `-n +N` (digits only), whether it is `+N`, and the remaining operands. */
function lineCount(args: string[]): { count: number; from: boolean; rest: string[] } | undefined {
  const [flag, ...rest] = args;
  if (flag === undefined || !flag.startsWith("-")) return undefined;
  const given = flag === "-n" ? rest.shift() : flag.slice(1);
  const m = given === undefined ? null : /^(\+?)([0-9]{1,6})$/.exec(given);
  if (m === null || (m[1] === "+" && flag !== "-n")) return undefined;
  return { count: Number(m[2]), from: m[1] === "+", rest };
}

/** The lines of `text` as the line-reading commands split it (a final newline ends the last line). */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const joinLines = (lines: string[]): string => lines.map((l) => `${l}\n`).join("");

/** `head`/`tail` with a line count: `pick(text, count, from)` on the text read. */
function countedLines(pick: (text: string, count: number, from: boolean) => string | undefined): Runner {
  return async (fs, call, cwd) => {
    const parsed = lineCount(call.args);
    if (parsed === undefined || parsed.rest.length > 1) return undefined;
    const text = await readText(fs, call, cwd, parsed.rest[0]);
    return text === undefined ? undefined : pick(text, parsed.count, parsed.from);
  };
}

/** A command of exactly `flags` and at most one operand, answering `answer(text, operand)`. */
function oneText(
  flags: string[],
  answer: (text: string, operand: string | undefined) => string | undefined,
): Runner {
  return async (fs, call, cwd) => {
    const n = flags.length;
    if (call.args.length > n + 1 || call.args.length < n || flags.some((f, i) => call.args[i] !== f))
      return undefined;
    const text = await readText(fs, call, cwd, call.args[n]);
    return text === undefined ? undefined : answer(text, call.args[n]);
  };
}

/** A grep pattern that means itself (no regular-expression or shell meaning, not an option). */
const FIXED_WORD = /^[A-Za-z0-9_,:@%=/][A-Za-z0-9_,:@%=/-]*$/;
/** A single-quoted fixed text: optional `^`, then spaces and word characters, then optional `$`. */
const FIXED_QUOTED = /^'(\^?)([A-Za-z0-9_,:@%=/ -]+?)(\$?)'$/;

/** The line test of a grep pattern, or undefined when it is not a fixed text. */
function fixedPattern(word: string): ((line: string) => boolean) | undefined {
  if (FIXED_WORD.test(word)) return (line) => line.includes(word);
  const m = FIXED_QUOTED.exec(word);
  if (m === null || (m[1] === "" && (m[2] as string).startsWith("-"))) return undefined;
  const [, start, text, end] = m as unknown as [string, string, string, string];
  if (start && end) return (line) => line === text;
  if (start) return (line) => line.startsWith(text);
  if (end) return (line) => line.endsWith(text);
  return (line) => line.includes(text);
}

function grep(fs: Fs, call: Call, cwd: string): Promise<string | undefined> | undefined {
  const count = call.args[0] === "-c";
  const [word, name, extra] = count ? call.args.slice(1) : call.args;
  const test = word === undefined ? undefined : fixedPattern(word);
  if (test === undefined || extra !== undefined) return undefined;
  return readText(fs, call, cwd, name).then((text) => {
    if (text === undefined) return undefined;
    const found = linesOf(text).filter(test);
    if (found.length === 0) return undefined;
    return count ? `${found.length}\n` : joinLines(found);
  });
}

/** `-tC -kN,N` / `-dC -fN`: the separator C (`,`, `:`, `;` or a tab) and the field N (1-9), or undefined. */
function fieldOption(sep: string | undefined, field: string | undefined, s: string, f: string) {
  const ms = sep === undefined ? null : new RegExp(`^-${s}([,:;\t])$`).exec(sep);
  const mf = field === undefined ? null : new RegExp(`^-${f}([1-9])${f === "k" ? ",\\1" : ""}$`).exec(field);
  return ms === null || mf === null ? undefined : { sep: ms[1] as string, index: Number(mf[1]) - 1 };
}

function sortByField(fs: Fs, call: Call, cwd: string): Promise<string | undefined> | undefined {
  const key = fieldOption(call.args[0], call.args[1], "t", "k");
  if (key === undefined || call.args.length > 3) return undefined;
  return readText(fs, call, cwd, call.args[2]).then((text) => {
    if (text === undefined) return undefined;
    const keyOf = (line: string) => line.split(key.sep)[key.index] ?? "";
    // just-bash's keyed order: the key by `localeCompare`, then the whole line.
    const sorted = linesOf(text).sort((a, b) => keyOf(a).localeCompare(keyOf(b)) || a.localeCompare(b));
    return joinLines(sorted);
  });
}

function cut(fs: Fs, call: Call, cwd: string): Promise<string | undefined> | undefined {
  const field = fieldOption(call.args[0], call.args[1], "d", "f");
  if (field === undefined || call.args.length > 3) return undefined;
  return readText(fs, call, cwd, call.args[2]).then((text) => {
    // just-bash writes cut's fields as bytes: only ASCII text reads back the same.
    if (text === undefined || !isAscii(text)) return undefined;
    return joinLines(linesOf(text).map((line) => line.split(field.sep)[field.index] ?? ""));
  });
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

const sortLines = (text: string): string => joinLines(linesOf(text).sort((a, b) => a.localeCompare(b)));

export const TEXT_COMMANDS: ReadonlyArray<[string, Runner]> = [
  ["head", countedLines((text, n, from) => (from ? undefined : firstLines(text, n)))],
  ["tail", countedLines((text, n, from) => (from ? fromLine(text, n) : lastLines(text, n)))],
  ["wc", oneText(["-l"], (text, name) => `${countNewlines(text)}${name === undefined ? "" : ` ${name}`}\n`)],
  [
    "sort",
    async (fs, call, cwd) =>
      call.args[0]?.startsWith("-t") ? sortByField(fs, call, cwd) : oneText([], sortLines)(fs, call, cwd),
  ],
  ["grep", async (fs, call, cwd) => grep(fs, call, cwd)],
  ["cut", async (fs, call, cwd) => cut(fs, call, cwd)],
];

/** The text from line `n` on (`tail -n +N`; `+0` is `+1`), a missing final newline kept missing. */
function fromLine(text: string, n: number): string {
  let at = 0;
  for (let line = 1; line < n; line++) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) return "";
    at = nl + 1;
  }
  return text.slice(at);
}

function countNewlines(text: string): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/** The first `n` lines of `text` with their newlines (all of it when it has fewer), as `head -n`. */
function firstLines(text: string, n: number): string {
  let at = 0;
  for (let lines = 0; lines < n; lines++) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) return text;
    at = nl + 1;
  }
  return text.slice(0, at);
}

/** The last `n` lines of `text`, a missing final newline kept missing, as `tail -n`. */
function lastLines(text: string, n: number): string {
  if (n === 0) return "";
  let at = text.endsWith("\n") ? text.length - 1 : text.length;
  for (let lines = 0; lines < n; lines++) {
    if (at <= 0) return text;
    const nl = text.lastIndexOf("\n", at - 1);
    if (nl === -1) return text;
    at = nl;
  }
  return text.slice(at + 1);
}
