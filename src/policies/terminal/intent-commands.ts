import {
  describedLayout,
  fieldIndex,
  headerOf,
  type InstructionNames,
  looksLikeFile,
  pathLines,
} from "./instruction-names.ts";

/**
 * Commands of the terminal grammar that follow from what an instruction asks (its verbs and the names
 * it gives) and from the outputs seen so far. Each has a prior score and says whether it looks like it
 * completes the instruction (`final`): after a final command that exited 0, `done` is proposed.
 * Generic templates only: nothing here knows a task, its id or its expected result.
 */
export interface IntentCommand {
  command: string;
  score: number;
  final: boolean;
}

export interface SeenOutputs {
  /** Stdout of every step so far, oldest first (the last one is the current observation's). */
  outputs: ReadonlyArray<string>;
  /** The command that printed the last output, if any. */
  lastCommand?: string | undefined;
  /** The output of the latest search (`grep -l`, `find -name`) and how many commands ran after it. */
  searchOutput?: { output: string; stepsAgo: number } | undefined;
}

const SEARCH = /^\s*(grep|find)\b.*\s(-r?l|-name)\b/;

/** The latest search among commands (oldest first) with the output each printed. */
export function latestSearch(
  steps: ReadonlyArray<{ command: string | undefined; output: string }>,
): { output: string; stepsAgo: number } | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i] as { command: string | undefined; output: string };
    if (s.command !== undefined && SEARCH.test(s.command) && !s.command.includes("|"))
      return { output: s.output, stepsAgo: steps.length - 1 - i };
  }
  return undefined;
}

const q = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

function files(paths: ReadonlyArray<string>): string[] {
  return paths.filter(looksLikeFile);
}

function dirs(paths: ReadonlyArray<string>): string[] {
  return paths.filter((p) => !looksLikeFile(p));
}

/** Every intent command for these names and outputs; may be empty. */
export function intentCommands(n: InstructionNames, seen: SeenOutputs): IntentCommand[] {
  const out: IntentCommand[] = [];
  const add = (command: string, score: number, final: boolean) => out.push({ command, score, final });
  const has = (re: RegExp) => re.test(n.lower);
  const srcDirs = dirs(n.sources);
  const srcFiles = files(n.sources);
  const destFiles = files(n.dests);
  const destDirs = dirs(n.dests);
  const last = seen.outputs.at(-1) ?? "";
  const anyDir = srcDirs.length > 0 ? srcDirs : ["."];

  // Look for a code or word under a folder; copy or move what was found.
  for (const w of n.words) for (const d of anyDir) add(`grep -rl ${q(w)} ${d}`, 3, false);
  if (has(/\b(copy|move)\b/) && destFiles.length > 0) {
    const verb = has(/\bcopy\b/) ? "cp" : "mv";
    const search = seen.searchOutput;
    const found = pathLines(search?.output ?? last).filter((p) => !destFiles.includes(p));
    const score = search === undefined ? 1 : search.stepsAgo === 0 ? 4.5 : 3.5;
    for (const p of found.slice(0, 4)) for (const f of destFiles) add(`${verb} ${p} ${f}`, score, true);
  }
  // Extension rules under a folder: rename, delete, move, count.
  const [e1, e2] = n.exts;
  for (const d of anyDir) {
    if (e1 && e2 && has(/\brename\b|\bending in\b/)) {
      add(`find ${d} -name '*.${e1}' | while read f; do mv "$f" "\${f%.${e1}}.${e2}"; done`, 4.5, true);
      add(`find ${d} -name '*.${e1}'`, 1.5, false);
    }
    if (e1 && has(/\b(delete|remove)\b/)) {
      add(`find ${d} -name '*.${e1}' -type f -delete`, 4.5, true);
      add(`find ${d} -name '*.${e1}'`, 2, false);
    }
    if (e1 && has(/\bhow many\b|\bcount\b/)) {
      add(`find ${d} -name '*.${e1}' -type f | wc -l`, 4.5, false);
    }
  }
  if (e1 && has(/\bmove\b/)) {
    const targets = destDirs.length > 0 ? destDirs : dirs(n.paths);
    for (const s of srcDirs.length > 0 ? srcDirs : ["."])
      for (const t of targets) if (t !== s) add(`mkdir -p ${t} && mv ${s}/*.${e1} ${t}/`, 4.5, true);
  }
  // Count matching lines of a file into a file.
  if (has(/\bcount\b|\bhow many\b/))
    for (const f of srcFiles)
      for (const w of n.words) {
        for (const g of destFiles) add(`grep -cw ${q(w)} ${f} > ${g}`, 4.5, true);
        add(`grep -cw ${q(w)} ${f}`, 1.5, false);
      }
  // Set a key of a config file.
  for (const f of srcFiles)
    for (const [k, v] of n.keyValues) {
      add(`sed -i 's/^${k}=.*/${k}=${v}/' ${f}`, 4.5, true);
    }
  // Remove duplicate lines in place / sort in place.
  if (has(/\bduplicate|\bdedup|\brepeated\b/))
    for (const f of srcFiles) {
      add(`awk '!seen[$0]++' ${f} > ${f}.new && mv ${f}.new ${f}`, 4.5, true);
      add(`sort -u ${f} -o ${f}`, 0, true);
    }
  // A column of a table (header seen in an output) into a file.
  const header = seen.outputs.map(headerOf).findLast((h) => h !== undefined);
  for (const c of n.columns) {
    const i = header ? fieldIndex(header.fields, c) : 0;
    for (const f of srcFiles) {
      if (i === 0) add(`head -n 3 ${f}`, 3, false);
      else {
        const d = header?.sep === "," ? "-d," : "-d' '";
        for (const g of destFiles) add(`tail -n +2 ${f} | cut ${d} -f${i} > ${g}`, 4.5, true);
      }
    }
  }
  // Rows where a field compares with a number: print another field into a file.
  for (const { field, op, value } of n.comparisons) {
    for (const h of n.quoted) {
      const fields = h.split(/\s+/);
      const i = fieldIndex(fields, field);
      if (i === 0 || fields.length < 2) continue;
      const wanted = fields.filter(
        (_, j) =>
          j !== i - 1 && new RegExp(`\\b${fields[j]}s?\\b`).test(n.lower.replace(h.toLowerCase(), "")),
      );
      for (const w of wanted.length > 0 ? wanted : fields.filter((_, j) => j !== i - 1)) {
        const j = fields.indexOf(w) + 1;
        for (const f of srcFiles)
          for (const g of destFiles) add(`awk '$${i} ${op} ${value} {print $${j}}' ${f} > ${g}`, 4.5, true);
      }
    }
  }
  // A layout that a file describes (read by an earlier `cat`): build it in one command.
  if (has(/\blayout\b|\bdescribes?\b|\bstructure\b/)) {
    for (const f of srcFiles) add(`cat ${f}`, 3, false);
    const layout = seen.outputs.map(describedLayout).findLast((l) => l !== undefined);
    if (layout) {
      const at = (p: string) => (layout.root === "." ? p : `${layout.root}/${p}`);
      const parents = [...layout.emptyFiles, ...layout.texts.map(([p]) => p)]
        .map((p) => p.split("/").slice(0, -1).join("/"))
        .filter((p) => p.length > 0);
      const folders = [layout.root, ...layout.folders, ...parents].map((d, i) => (i === 0 ? d : at(d)));
      const parts = [`mkdir -p ${[...new Set(folders)].join(" ")}`];
      for (const e of layout.emptyFiles) parts.push(`touch ${at(e)}`);
      for (const [p, t] of layout.texts) parts.push(`echo ${q(t)} > ${at(p)}`);
      add(parts.join(" && "), 4.5, true);
    }
  }
  return out;
}
