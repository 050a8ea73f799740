import { type Call, decodeSmall, type Fs, isPlainFile, type Runner } from "./fast-path-commands.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * The fast path's commands that read one text file and print part of it (`fast-path.ts`): `head -N
 * FILE` / `head -n N FILE`, `tail -N FILE` / `tail -n N FILE`, `wc -l FILE`, `sort FILE` and `grep WORD
 * FILE` for a fixed word. Each answers only for one regular UTF-8 file of at most 64 KiB without NUL
 * bytes, outside the system roots, and gives the output of just-bash's own command; anything else
 * (other options, `+N`, several files, a word with regular-expression characters, a `grep` that finds
 * nothing and so exits 1) returns undefined and runs in just-bash.
 */

/** The text of the single file operand `name`, or undefined when the fast path does not read it. */
async function readText(fs: Fs, cwd: string, name: string | undefined): Promise<string | undefined> {
  if (name === undefined || name.startsWith("-")) return undefined;
  const path = fs.resolvePath(cwd, name);
  if (isSystemPath(path) || !(await isPlainFile(fs, path))) return undefined;
  const text = decodeSmall(await fs.readFileBuffer(path));
  return text === undefined || text.includes("\0") ? undefined : text;
}

/** The count of `-N` / `-n N` (digits only) and the remaining operands, or undefined. */
function lineCount(args: string[]): { count: number; rest: string[] } | undefined {
  const [flag, ...rest] = args;
  if (flag === undefined || !flag.startsWith("-")) return undefined;
  const count = flag === "-n" ? rest.shift() : flag.slice(1);
  if (count === undefined || !/^[0-9]{1,6}$/.test(count)) return undefined;
  return { count: Number(count), rest };
}

/** The lines of `text` as the line-reading commands split it (a final newline ends the last line). */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const joinLines = (lines: string[]): string => lines.map((l) => `${l}\n`).join("");

/** `head`/`tail` with a line count: `pick(text, count)` on the one file's text. */
function countedLines(pick: (text: string, count: number) => string): Runner {
  return async (fs, call, cwd) => {
    const parsed = lineCount(call.args);
    if (parsed === undefined || parsed.rest.length !== 1) return undefined;
    const text = await readText(fs, cwd, parsed.rest[0]);
    return text === undefined ? undefined : pick(text, parsed.count);
  };
}

/** A command of exactly `flags` and one file operand, answering `answer(text, operand)`. */
function oneFile(flags: string[], answer: (text: string, call: Call) => string | undefined): Runner {
  return async (fs, call, cwd) => {
    if (call.args.length !== flags.length + 1 || flags.some((f, i) => call.args[i] !== f)) return undefined;
    const text = await readText(fs, cwd, call.args[flags.length]);
    return text === undefined ? undefined : answer(text, call);
  };
}

/** A grep pattern that means itself (no regular-expression or shell meaning, not an option). */
const FIXED_WORD = /^[A-Za-z0-9_,:@%=/][A-Za-z0-9_,:@%=/-]*$/;

export const TEXT_COMMANDS: ReadonlyArray<[string, Runner]> = [
  ["head", countedLines((text, n) => firstLines(text, n))],
  ["tail", countedLines((text, n) => lastLines(text, n))],
  ["wc", oneFile(["-l"], (text, call) => `${countNewlines(text)} ${call.args[1]}\n`)],
  ["sort", oneFile([], (text) => joinLines(linesOf(text).sort((a, b) => a.localeCompare(b))))],
  [
    "grep",
    async (fs, call, cwd) => {
      const [word, name] = call.args;
      if (call.args.length !== 2 || word === undefined || !FIXED_WORD.test(word)) return undefined;
      const text = await readText(fs, cwd, name);
      if (text === undefined) return undefined;
      const found = linesOf(text).filter((l) => l.includes(word));
      return found.length === 0 ? undefined : joinLines(found);
    },
  ],
];

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
