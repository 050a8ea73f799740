/**
 * What a terminal instruction names, read with generic patterns only: the paths it writes as `~/x`
 * (split into sources and destinations by the word before them), bare extensions (`.txt`), upper-case
 * words and codes, numbers, quoted strings, `set k to v` pairs, numeric comparisons and `the x column`.
 */

export interface InstructionNames {
  /** Paths relative to the home folder, in order of appearance. */
  paths: string[];
  /** Paths written after "to" / "into" (where results go). */
  dests: string[];
  /** The other paths (where input comes from). */
  sources: string[];
  /** Bare extensions in order of appearance (`.txt` → `txt`). */
  exts: string[];
  /** Upper-case words and codes (`ERROR`, `K7Q2ZP`). */
  words: string[];
  numbers: string[];
  quoted: string[];
  keyValues: Array<[string, string]>;
  /** `field > N` comparisons. */
  comparisons: Array<{ field: string; op: string; value: string }>;
  /** Fields named as `the x column`. */
  columns: string[];
  /** Lower-cased instruction, for verb triggers. */
  lower: string;
}

const HOME_PATH = /~\/([A-Za-z0-9_./-]*[A-Za-z0-9_/-])/g;
const BARE_EXT = /(?:^|[\s"'(*])\.([A-Za-z0-9]{1,5})\b/g;
const UPPER = /\b(?=[A-Z0-9]*[A-Z])[A-Z0-9]{3,10}\b/g;
const NUMBER = /(?<![\w.~/-])\d+(?![\w/-])/g;
const QUOTED = /"([^"]+)"|'([^']+)'/g;
const KEY_VALUE = /\bset ([A-Za-z_][\w.-]*) to ([\w.:/-]*\w)/g;
const COMPARISON = /\b([a-z_]+)\s*(>=|<=|>|<|==|=)\s*(-?\d+(?:\.\d+)?)/g;
const COLUMN = /\bthe ([A-Za-z_]+) column\b/g;
const DEST_CUE = /\b(?:to|into)\b(?: (?:a|the) (?:new )?(?:folder|file|directory))?\s*$/i;

export function uniq(items: Iterable<string>, max = 12): string[] {
  return [...new Set(items)].slice(0, max);
}

/** Reads the names of an instruction; the same text always gives the same names. */
export function instructionNames(instruction: string): InstructionNames {
  const paths: string[] = [];
  const dests: string[] = [];
  const sources: string[] = [];
  for (const m of instruction.matchAll(HOME_PATH)) {
    const path = (m[1] as string).replace(/\/+$/, "");
    if (path.length === 0) continue;
    paths.push(path);
    const before = instruction.slice(Math.max(0, (m.index ?? 0) - 30), m.index);
    (DEST_CUE.test(before) ? dests : sources).push(path);
  }
  const quoted = [...instruction.matchAll(QUOTED)].map((m) => (m[1] ?? m[2]) as string);
  return {
    paths: uniq(paths),
    dests: uniq(dests),
    sources: uniq(sources.filter((s) => !dests.includes(s))),
    exts: uniq(
      [...instruction.matchAll(BARE_EXT)].map((m) => m[1] as string),
      4,
    ),
    words: uniq(
      [...instruction.matchAll(UPPER)].map((m) => m[0]),
      4,
    ),
    numbers: uniq(
      [...instruction.matchAll(NUMBER)].map((m) => m[0]),
      4,
    ),
    quoted,
    keyValues: [...instruction.matchAll(KEY_VALUE)].map((m) => [m[1], m[2]] as [string, string]),
    comparisons: [...instruction.matchAll(COMPARISON)].map((m) => ({
      field: m[1] as string,
      op: m[2] === "=" ? "==" : (m[2] as string),
      value: m[3] as string,
    })),
    columns: uniq(
      [...instruction.matchAll(COLUMN)].map((m) => m[1] as string),
      3,
    ),
    lower: instruction.toLowerCase(),
  };
}

/** Whether a path names a file (it has an extension) rather than a folder. */
export function looksLikeFile(path: string): boolean {
  return /(?:^|\/)[^/]*[^/.]\.[A-Za-z0-9]{1,5}$/.test(path) || /(?:^|\/)\.[^/]+$/.test(path);
}

/** Lines of an output that look like relative file paths (`docs/a/b.txt`, `./x.log`). */
export function pathLines(stdout: string): string[] {
  return uniq(
    stdout
      .split("\n")
      .map((l) => l.trim().replace(/^\.\//, ""))
      .filter((l) => /^[A-Za-z0-9_.][\w./-]*$/.test(l) && looksLikeFile(l)),
    16,
  );
}

/** The first line of an output that splits into at least two fields (a table header). */
export function headerOf(stdout: string): { fields: string[]; sep: "," | " " } | undefined {
  for (const line of stdout.split("\n").slice(0, 3)) {
    if (line.includes(",")) return { fields: line.split(",").map((f) => f.trim()), sep: "," };
    const parts = line.trim().split(/\s+/);
    if (parts.length >= 2 && parts.every((p) => /^[a-z_]+$/.test(p))) return { fields: parts, sep: " " };
  }
  return undefined;
}

/** The 1-based index of a field among header fields, matching `name` or its plural `names`. */
export function fieldIndex(fields: ReadonlyArray<string>, name: string): number {
  const n = name.toLowerCase();
  const i = fields.findIndex((f) => {
    const g = f.toLowerCase();
    return g === n || `${g}s` === n || g === `${n}s`;
  });
  return i + 1;
}

/** A layout described line by line (`root: ~/x`, `folder: a/b/`, `empty file: a/.keep`, `file F, one line: T`). */
export interface DescribedLayout {
  root: string;
  folders: string[];
  emptyFiles: string[];
  texts: Array<[string, string]>;
}

/** Reads a layout description from an output, or undefined when it names no folder or file. */
export function describedLayout(stdout: string): DescribedLayout | undefined {
  const layout: DescribedLayout = { root: ".", folders: [], emptyFiles: [], texts: [] };
  for (const line of stdout.split("\n")) {
    const m = /^\s*([A-Za-z][\w ]*?)\s*:\s*(\S.*?)\s*$/.exec(line);
    const text = /^\s*file\s+([\w./-]+),?[^:]*:\s*(.*?)\s*$/i.exec(line);
    if (text) layout.texts.push([text[1] as string, text[2] as string]);
    else if (m) {
      const label = (m[1] as string).toLowerCase();
      const value = (m[2] as string).replace(/^~\//, "");
      if (/\broot\b|\bbase\b/.test(label)) layout.root = value.replace(/\/+$/, "") || ".";
      else if (/\bempty\b/.test(label)) layout.emptyFiles.push(value);
      else if (/\b(folder|dir|directory)\b/.test(label)) layout.folders.push(value.replace(/\/+$/, ""));
    }
  }
  const any = layout.folders.length + layout.emptyFiles.length + layout.texts.length;
  return any > 0 ? layout : undefined;
}
