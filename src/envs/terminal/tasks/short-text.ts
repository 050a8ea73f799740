import type { TerminalTaskSpec } from "./spec.ts";
import { HOME } from "./spec.ts";
import { keptIntact, NOUNS, PEOPLE, pickDistinct, sameText, token } from "./words.ts";

const LEVELS = ["INFO", "WARN", "ERROR", "DEBUG"];

/** A seeded log: `lines` lines `<time> <LEVEL> <message>`. */
function logLines(
  random: { int(n: number): number; pick<T>(a: ReadonlyArray<T>): T },
  lines: number,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const t = `12:${String(i).padStart(2, "0")}:0${random.int(10)}`;
    out.push(`${t} ${random.pick(LEVELS)} ${random.pick(NOUNS)} ${random.pick(NOUNS)}`);
  }
  return out;
}

const countLines: TerminalTaskSpec = {
  id: "count-matching-lines",
  tier: "short",
  split: "train",
  summary: "Count the log lines of one level and write the number into a file.",
  maxSteps: 10,
  tags: ["grep", "wc", "redirect"],
  build(random) {
    const level = random.pick(LEVELS);
    const lines = logLines(random, 14 + random.int(10));
    const count = lines.filter((l) => l.split(" ")[1] === level).length;
    const out = `${level.toLowerCase()}-count.txt`;
    return {
      instruction: `Count the lines of ~/app.log whose level is ${level} and write just that number to ~/${out}.`,
      files: { [`${HOME}/app.log`]: `${lines.join("\n")}\n` },
      oracle: [`grep -c ' ${level} ' app.log > ${out}`, `cat ${out}`],
      expect: { out: `${HOME}/${out}`, count },
    };
  },
  check(view, world) {
    const e = world.expect as { out: string; count: number };
    return [{ name: "count", ok: view.read(e.out)?.trim() === String(e.count) }];
  },
};

const fixConfig: TerminalTaskSpec = {
  id: "fix-config-key",
  tier: "short",
  split: "train",
  summary: "Change one key of a key=value config file in place, leaving the other lines as they are.",
  maxSteps: 10,
  tags: ["sed", "config"],
  build(random) {
    const keys = pickDistinct(random, ["port", "host", "workers", "timeout", "retries", "level", "mode"], 5);
    const values = keys.map((k) => (k === "host" ? "localhost" : String(10 + random.int(90))));
    const key = random.pick(keys);
    const value = String(1000 + random.int(9000));
    const text = `${keys.map((k, i) => `${k}=${values[i]}`).join("\n")}\n`;
    const expected = `${keys.map((k, i) => `${k}=${k === key ? value : values[i]}`).join("\n")}\n`;
    return {
      instruction: `In ~/service.conf, set ${key} to ${value}. Do not change any other line.`,
      files: { [`${HOME}/service.conf`]: text },
      oracle: [`sed -i 's/^${key}=.*/${key}=${value}/' service.conf`, "cat service.conf"],
      expect: { expected },
    };
  },
  check(view, world) {
    return [sameText("config", view.read(`${HOME}/service.conf`), String(world.expect.expected))];
  },
};

const extractColumn: TerminalTaskSpec = {
  id: "extract-column",
  tier: "short",
  split: "train",
  summary: "Extract one column of a CSV file (without its header) into a text file, one value per line.",
  maxSteps: 10,
  tags: ["cut", "tail", "csv"],
  build(random) {
    const header = ["id", "name", "email", "city"];
    const col = 1 + random.int(3);
    const rows = pickDistinct(random, PEOPLE, 6).map((p, i) => [
      String(i + 1),
      p,
      `${p}@${random.pick(NOUNS)}.test`,
      random.pick(NOUNS),
    ]);
    const field = header[col] as string;
    const csv = `${[header, ...rows].map((r) => r.join(",")).join("\n")}\n`;
    return {
      instruction: `Write the ${field} column of ~/people.csv (no header, one per line, same order) to ~/${field}s.txt.`,
      files: { [`${HOME}/people.csv`]: csv },
      oracle: [`tail -n +2 people.csv | cut -d, -f${col + 1} > ${field}s.txt`],
      expect: { out: `${HOME}/${field}s.txt`, lines: rows.map((r) => r[col]).join("\n") },
    };
  },
  check(view, world) {
    return [sameText("column", view.read(String(world.expect.out)), String(world.expect.lines))];
  },
};

const dedupe: TerminalTaskSpec = {
  id: "dedupe-lines",
  tier: "short",
  split: "heldout",
  summary: "Remove repeated lines from a list in place, keeping the first occurrence and the order.",
  maxSteps: 10,
  tags: ["awk", "uniq"],
  build(random) {
    const base = pickDistinct(random, NOUNS, 7);
    const lines = [...base];
    for (let i = 0; i < 5; i++) lines.splice(random.int(lines.length + 1), 0, random.pick(base));
    const firsts = [...new Set(lines)];
    return {
      instruction:
        "Remove duplicate lines from ~/list.txt in place; keep each line's first occurrence, in order.",
      files: { [`${HOME}/list.txt`]: `${lines.join("\n")}\n` },
      oracle: ["awk '!seen[$0]++' list.txt > list.new", "mv list.new list.txt"],
      expect: { lines: firsts.join("\n") },
    };
  },
  check(view, world) {
    return [sameText("deduped", view.read(`${HOME}/list.txt`), String(world.expect.lines))];
  },
};

const countFiles: TerminalTaskSpec = {
  id: "answer-file-count",
  tier: "short",
  split: "train",
  summary: "Answer how many files of one extension a folder tree holds (reply done with the number).",
  maxSteps: 10,
  tags: ["find", "wc", "answer"],
  build(random) {
    const ext = random.pick(["py", "js", "rs"]);
    const files: Record<string, string> = {};
    let count = 0;
    pickDistinct(random, NOUNS, 6 + random.int(8)).forEach((name, i) => {
      const kind = random.next() < 0.6 ? ext : "md";
      if (kind === ext) count++;
      files[`${HOME}/repo/${i % 2 === 0 ? "src" : "src/util"}/${name}.${kind}`] = `# ${name}\n`;
    });
    return {
      instruction: `How many .${ext} files are there under ~/repo (all subfolders)? Reply done with the number as the answer.`,
      files,
      oracle: [`find repo -name '*.${ext}' | wc -l`],
      answer: String(count),
      expect: { files },
    };
  },
  check(view, world, answer) {
    return [
      { name: "answer", ok: answer?.trim() === world.answer },
      keptIntact((p) => view.read(p), world.expect.files as Record<string, string>),
    ];
  },
};

const threshold: TerminalTaskSpec = {
  id: "extract-over-threshold",
  tier: "short",
  split: "heldout",
  summary: "From a whitespace table, write the names whose score exceeds a threshold into a file.",
  maxSteps: 10,
  tags: ["awk", "filter"],
  build(random) {
    const people = pickDistinct(random, PEOPLE, 8);
    const scores = people.map(() => 10 + random.int(90));
    const limit = 30 + random.int(40);
    const table = people.map((p, i) => `${p} ${token(random, 3)} ${scores[i]}`).join("\n");
    const over = people.filter((_, i) => (scores[i] as number) > limit);
    return {
      instruction: `~/scores.txt has lines "name code score". Write the names with score > ${limit}, one per line in file order, to ~/top.txt.`,
      files: { [`${HOME}/scores.txt`]: `${table}\n` },
      oracle: [`awk '$3 > ${limit} {print $1}' scores.txt > top.txt`],
      expect: { over: over.join("\n") },
    };
  },
  check(view, world) {
    return [sameText("top", view.read(`${HOME}/top.txt`) ?? undefined, String(world.expect.over))];
  },
};

export const SHORT_TEXT_TASKS: ReadonlyArray<TerminalTaskSpec> = [
  countLines,
  fixConfig,
  extractColumn,
  dedupe,
  countFiles,
  threshold,
];
