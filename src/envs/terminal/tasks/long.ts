import { sha256Hex } from "../../../core/hash.ts";
import type { TerminalTaskSpec } from "./spec.ts";
import { HOME } from "./spec.ts";
import { filler, keptIntact, NOUNS, PEOPLE, pickDistinct, sameText, token } from "./words.ts";

const mergeCsv: TerminalTaskSpec = {
  id: "merge-csv-by-key",
  tier: "long",
  split: "train",
  summary: "Merge two CSV files on their id column into a third, sorted by id, with a combined header.",
  maxSteps: 20,
  tags: ["join", "sort", "csv"],
  build(random) {
    const people = pickDistinct(random, PEOPLE, 6);
    const ids = pickDistinct(random, [11, 12, 13, 14, 15, 16, 17, 18, 19], 6).map(String);
    const cities = people.map(() => random.pick(NOUNS));
    const scores = people.map(() => String(random.int(100)));
    const order = random.shuffle(people.map((_, i) => i));
    const a = ["id,name", ...order.map((i) => `${ids[i]},${people[i]}`)].join("\n");
    const b = [
      "id,city,score",
      ...random.shuffle(order).map((i) => `${ids[i]},${cities[i]},${scores[i]}`),
    ].join("\n");
    const merged = [
      "id,name,city,score",
      ...people
        .map((_, i) => i)
        .sort((x, y) => Number(ids[x]) - Number(ids[y]))
        .map((i) => `${ids[i]},${people[i]},${cities[i]},${scores[i]}`),
    ].join("\n");
    return {
      instruction:
        "Merge ~/data/names.csv and ~/data/places.csv on their id column into ~/data/merged.csv with header " +
        "id,name,city,score and rows sorted by id. Keep both inputs and leave no other new files in ~/data.",
      files: { [`${HOME}/data/names.csv`]: `${a}\n`, [`${HOME}/data/places.csv`]: `${b}\n` },
      oracle: [
        "cd data",
        "head -1 names.csv",
        "head -1 places.csv",
        "tail -n +2 names.csv | sort -t, -k1,1 > n.sorted",
        "tail -n +2 places.csv | sort -t, -k1,1 > p.sorted",
        "echo id,name,city,score > merged.csv",
        "join -t, n.sorted p.sorted >> merged.csv",
        "rm n.sorted p.sorted",
        "cat merged.csv",
      ],
      expect: {
        merged,
        inputs: { [`${HOME}/data/names.csv`]: `${a}\n`, [`${HOME}/data/places.csv`]: `${b}\n` },
      },
    };
  },
  check(view, world) {
    const e = world.expect as { merged: string; inputs: Record<string, string> };
    return [
      sameText("merged", view.read(`${HOME}/data/merged.csv`), e.merged),
      { name: "no-stray-files", ok: view.filesUnder(`${HOME}/data`).length === 3 },
      keptIntact((p) => view.read(p), e.inputs),
    ];
  },
};

const cleanup: TerminalTaskSpec = {
  id: "project-cleanup",
  tier: "long",
  split: "train",
  summary:
    "A multi-step project clean-up: remove build output and backups, move docs, bump a version, write stats.",
  maxSteps: 30,
  tags: ["cleanup", "multi-step", "rm", "mv", "sed"],
  build(random) {
    const name = pickDistinct(random, NOUNS, 1)[0] as string;
    const root = `${HOME}/${name}`;
    const files: Record<string, string> = {};
    const sources = pickDistinct(random, NOUNS, 3 + random.int(3));
    for (const s of sources) files[`${root}/src/${s}.c`] = `int ${s}(void) { return ${random.int(9)}; }\n`;
    for (const s of sources.slice(0, 2)) files[`${root}/src/${s}.c.bak`] = "old\n";
    files[`${root}/build/${token(random, 4).toLowerCase()}.o`] = "obj\n";
    files[`${root}/build/out/${name}`] = "bin\n";
    const docs = pickDistinct(random, ["usage", "design", "faq", "changes"], 2);
    for (const d of docs) files[`${root}/${d}.md`] = filler(random, 2);
    files[`${root}/README.md`] = `# ${name}\n`;
    const minor = random.int(9);
    files[`${root}/project.conf`] = `name=${name}\nversion=1.${minor}.0\nowner=${random.pick(PEOPLE)}\n`;
    const next = `1.${minor + 1}.0`;
    const kept: Record<string, string> = { [`${root}/README.md`]: `# ${name}\n` };
    for (const s of sources) kept[`${root}/src/${s}.c`] = files[`${root}/src/${s}.c`] as string;
    const moved: Record<string, string> = {};
    for (const d of docs) moved[`${root}/docs/${d}.md`] = files[`${root}/${d}.md`] as string;
    return {
      instruction:
        `Clean up the project ~/${name}: delete the build/ folder; delete every *.bak file; move every .md file ` +
        `at the top level except README.md into a new docs/ folder; set version to ${next} in project.conf; ` +
        `and write the number of .c files in src/ to stats.txt at the project root.`,
      files,
      oracle: [
        `cd ${name}`,
        "ls -R",
        "rm -r build",
        "find . -name '*.bak' -delete",
        "mkdir docs",
        ...docs.map((d) => `mv ${d}.md docs/`),
        `sed -i 's/^version=.*/version=${next}/' project.conf`,
        "find src -name '*.c' | wc -l > stats.txt",
        "cat stats.txt project.conf",
      ],
      expect: {
        root,
        kept,
        moved,
        count: sources.length,
        conf: files[`${root}/project.conf`]?.replace(/version=.*/, `version=${next}`),
      },
    };
  },
  check(view, world) {
    const e = world.expect as {
      root: string;
      kept: Record<string, string>;
      moved: Record<string, string>;
      count: number;
      conf: string;
    };
    const top = view.filesUnder(e.root).filter((p) => !p.slice(e.root.length + 1).includes("/"));
    return [
      { name: "build-removed", ok: !view.exists(`${e.root}/build`) },
      { name: "backups-removed", ok: view.filesUnder(e.root).every((p) => !p.endsWith(".bak")) },
      { name: "docs-moved", ok: Object.entries(e.moved).every(([p, c]) => view.read(p) === c) },
      { name: "top-level-md", ok: top.filter((p) => p.endsWith(".md")).length === 1 },
      sameText("version", view.read(`${e.root}/project.conf`), e.conf),
      { name: "stats", ok: view.read(`${e.root}/stats.txt`)?.trim() === String(e.count) },
      keptIntact((p) => view.read(p), e.kept),
    ];
  },
};

const logReport: TerminalTaskSpec = {
  id: "log-report",
  tier: "long",
  split: "train",
  summary: "Split a web log into a report folder: error lines, requests per status code, the busiest client.",
  maxSteps: 24,
  tags: ["awk", "sort", "uniq", "report"],
  build(random) {
    const ips = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"];
    const lines: string[] = [];
    const n = 16 + random.int(8);
    const hits = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const ip = ips[Math.min(random.int(5), 3)] as string;
      hits.set(ip, (hits.get(ip) ?? 0) + 1);
      lines.push(`${ip} GET /${random.pick(NOUNS)} ${random.pick(["200", "200", "404", "500"])}`);
    }
    const top = [...hits.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (top.length > 1 && top[0]?.[1] === top[1]?.[1]) {
      lines.push(`${top[0]?.[0]} GET /tiebreak 200`);
    }
    const winner = top[0]?.[0] as string;
    const errors = lines.filter((l) => l.endsWith(" 500"));
    const codes = new Map<string, number>();
    for (const l of lines)
      codes.set(l.split(" ")[3] as string, (codes.get(l.split(" ")[3] as string) ?? 0) + 1);
    const perCode = [...codes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([c, k]) => `${c} ${k}`);
    return {
      instruction:
        "From ~/access.log (lines: ip method path status) make ~/report/ with: errors.txt = the lines with " +
        'status 500 (in order); codes.txt = one line "status count" per status, sorted by status; ' +
        "top.txt = the ip with the most requests.",
      files: { [`${HOME}/access.log`]: `${lines.join("\n")}\n` },
      oracle: [
        "head -3 access.log",
        "mkdir -p report",
        "grep ' 500$' access.log > report/errors.txt",
        "awk '{print $4}' access.log | sort | uniq -c | awk '{print $2, $1}' > report/codes.txt",
        "awk '{print $1}' access.log | sort | uniq -c | sort -rn | head -1 | awk '{print $2}' > report/top.txt",
        "cat report/codes.txt",
        "cat report/top.txt",
        "wc -l report/errors.txt",
      ],
      expect: { errors: errors.join("\n"), codes: perCode.join("\n"), winner },
    };
  },
  check(view, world) {
    const e = world.expect as { errors: string; codes: string; winner: string };
    return [
      sameText("errors", view.read(`${HOME}/report/errors.txt`), e.errors),
      sameText("codes", view.read(`${HOME}/report/codes.txt`), e.codes),
      sameText("top", view.read(`${HOME}/report/top.txt`), e.winner),
    ];
  },
};

const photos: TerminalTaskSpec = {
  id: "photos-by-year",
  tier: "long",
  split: "train",
  summary: "Sort dated photo files into one folder per year and write a sorted index of the moves.",
  maxSteps: 24,
  tags: ["loop", "mkdir", "mv", "index"],
  build(random) {
    const years = pickDistinct(random, ["2019", "2020", "2021", "2022", "2023"], 3);
    const files: Record<string, string> = {};
    const moved: Record<string, string> = {};
    pickDistinct(random, NOUNS, 7).forEach((name, i) => {
      const y = years[i % 3] as string;
      const file = `${y}-0${1 + random.int(9)}-1${random.int(10)}-${name}.jpg`;
      const content = `jpeg ${token(random)}\n`;
      files[`${HOME}/camera/${file}`] = content;
      moved[`${HOME}/photos/${y}/${file}`] = content;
    });
    const index = Object.keys(moved)
      .map((p) => p.slice(`${HOME}/photos/`.length))
      .sort()
      .join("\n");
    return {
      instruction:
        "Move every photo in ~/camera (named YYYY-MM-DD-name.jpg) into ~/photos/YYYY/ by its year, then write " +
        "~/photos/index.txt listing year/filename for each photo, sorted. ~/camera must end up empty.",
      files,
      oracle: [
        "ls camera",
        "mkdir -p photos",
        ...years.map((y) => `mkdir -p photos/${y}`),
        ...years.map((y) => `mv camera/${y}-* photos/${y}/`),
        "cd photos",
        "find . -name '*.jpg' | sed 's|^./||' | sort > index.txt",
        "cat index.txt",
      ],
      expect: { moved, index },
    };
  },
  check(view, world) {
    const e = world.expect as { moved: Record<string, string>; index: string };
    return [
      { name: "moved", ok: Object.entries(e.moved).every(([p, c]) => view.read(p) === c) },
      { name: "camera-empty", ok: view.filesUnder(`${HOME}/camera`).length === 0 },
      sameText("index", view.read(`${HOME}/photos/index.txt`), e.index),
    ];
  },
};

const release: TerminalTaskSpec = {
  id: "release-bundle",
  tier: "long",
  split: "heldout",
  summary: "Assemble a release folder: copy built files, write VERSION and a sha256 checksum list, log it.",
  maxSteps: 24,
  tags: ["cp", "sha256sum", "multi-step"],
  build(random) {
    const version = `${1 + random.int(3)}.${random.int(10)}.${random.int(10)}`;
    const files: Record<string, string> = {};
    const bins = pickDistinct(random, NOUNS, 3);
    for (const b of bins) files[`${HOME}/dist/${b}`] = `binary ${b} ${token(random)}\n`;
    files[`${HOME}/dist/${bins[0]}.map`] = "debug map\n";
    files[`${HOME}/releases.log`] = "";
    const dir = `release-${version}`;
    return {
      instruction:
        `Create ~/${dir}/ holding copies of the files in ~/dist except *.map files, a VERSION file containing ` +
        `${version}, and SHA256SUMS with the output of "sha256sum" over those copies (run inside the folder, ` +
        `excluding VERSION and SHA256SUMS). Finally append the line "${version}" to ~/releases.log.`,
      files,
      oracle: [
        `mkdir ${dir}`,
        ...bins.map((b) => `cp dist/${b} ${dir}/`),
        `echo ${version} > ${dir}/VERSION`,
        `cd ${dir}`,
        `sha256sum ${[...bins].sort().join(" ")} > SHA256SUMS`,
        "cd ..",
        `echo ${version} >> releases.log`,
        `cat ${dir}/SHA256SUMS`,
      ],
      expect: { dir: `${HOME}/${dir}`, bins, version, originals: files },
    };
  },
  check(view, world) {
    const e = world.expect as {
      dir: string;
      bins: string[];
      version: string;
      originals: Record<string, string>;
    };
    const sums = [...e.bins]
      .sort()
      .map((b) => `${sha256Hex(e.originals[`${HOME}/dist/${b}`] ?? "")}  ${b}`)
      .join("\n");
    const listed = view
      .filesUnder(e.dir)
      .map((p) => p.slice(e.dir.length + 1))
      .sort();
    return [
      {
        name: "copies",
        ok: e.bins.every((b) => view.read(`${e.dir}/${b}`) === e.originals[`${HOME}/dist/${b}`]),
      },
      { name: "no-map", ok: listed.every((p) => !p.endsWith(".map")) && listed.length === e.bins.length + 2 },
      sameText("version", view.read(`${e.dir}/VERSION`), e.version),
      sameText("checksums", view.read(`${e.dir}/SHA256SUMS`), sums),
      sameText("log", view.read(`${HOME}/releases.log`), e.version),
    ];
  },
};

export const LONG_TASKS: ReadonlyArray<TerminalTaskSpec> = [mergeCsv, cleanup, logReport, photos, release];
