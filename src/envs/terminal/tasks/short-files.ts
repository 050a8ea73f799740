import type { TerminalTaskSpec } from "./spec.ts";
import { HOME } from "./spec.ts";
import { filler, keptIntact, NOUNS, pickDistinct, sameText, token } from "./words.ts";

const findCopy: TerminalTaskSpec = {
  id: "find-and-copy",
  tier: "short",
  split: "train",
  summary: "Find the one file under docs/ that contains a given code and copy it to a given name.",
  maxSteps: 12,
  tags: ["find", "grep", "cp"],
  build(random) {
    const code = token(random);
    const dirs = pickDistinct(random, NOUNS, 3);
    const names = pickDistinct(random, NOUNS, 6);
    const files: Record<string, string> = {};
    const paths: string[] = [];
    names.forEach((name, i) => {
      const path = `${HOME}/docs/${dirs[i % dirs.length]}/${name}.txt`;
      paths.push(path);
      files[path] = filler(random, 3);
    });
    const target = paths[random.int(paths.length)] as string;
    files[target] = `${filler(random, 2)}reference ${code}\n${filler(random, 1)}`;
    const dest = `${pickDistinct(random, NOUNS, 1)[0]}-found.txt`;
    return {
      instruction: `Exactly one file under ~/docs contains the code ${code}. Copy it to ~/${dest} (keep the original).`,
      files,
      oracle: [`grep -rl ${code} docs`, `cp ${target.slice(HOME.length + 1)} ${dest}`],
      expect: { target, dest: `${HOME}/${dest}`, original: files[target], all: files },
    };
  },
  check(view, world) {
    const e = world.expect as { dest: string; original: string; all: Record<string, string> };
    return [sameText("copied", view.read(e.dest), e.original), keptIntact((p) => view.read(p), e.all)];
  },
};

const renameTxt: TerminalTaskSpec = {
  id: "rename-txt-to-md",
  tier: "short",
  split: "train",
  summary: "Rename every *.txt file under a tree to *.md, keeping contents and other files.",
  maxSteps: 12,
  tags: ["find", "mv", "loop"],
  build(random) {
    const root = `${HOME}/${pickDistinct(random, ["notes", "wiki", "journal"], 1)[0]}`;
    const sub = pickDistinct(random, NOUNS, 2);
    const files: Record<string, string> = {};
    const renamed: Record<string, string> = {};
    const others: Record<string, string> = {};
    pickDistinct(random, NOUNS, 5).forEach((name, i) => {
      const dir = i < 2 ? root : `${root}/${sub[i % 2]}`;
      const content = filler(random, 2);
      files[`${dir}/${name}.txt`] = content;
      renamed[`${dir}/${name}.md`] = content;
    });
    const other = `${root}/${sub[0]}/${token(random, 4).toLowerCase()}.csv`;
    files[other] = "a,b\n1,2\n";
    others[other] = "a,b\n1,2\n";
    const rel = root.slice(HOME.length + 1);
    return {
      instruction: `Under ~/${rel}, rename every .txt file to the same name ending in .md (subfolders too). Leave other files alone.`,
      files,
      oracle: [`find ${rel} -name '*.txt' | while read f; do mv "$f" "\${f%.txt}.md"; done`, `find ${rel}`],
      expect: { root, renamed, others },
    };
  },
  check(view, world) {
    const e = world.expect as {
      root: string;
      renamed: Record<string, string>;
      others: Record<string, string>;
    };
    return [
      { name: "no-txt-left", ok: view.filesUnder(e.root).every((p) => !p.endsWith(".txt")) },
      { name: "all-renamed", ok: Object.entries(e.renamed).every(([p, c]) => view.read(p) === c) },
      keptIntact((p) => view.read(p), e.others),
    ];
  },
};

const deleteByRule: TerminalTaskSpec = {
  id: "delete-by-rule",
  tier: "short",
  split: "train",
  summary: "Delete only the files a rule selects (one extension, anywhere under a folder); keep the rest.",
  maxSteps: 12,
  tags: ["find", "rm", "selective"],
  build(random) {
    const ext = random.pick(["tmp", "bak", "swp"]);
    const root = `${HOME}/workspace`;
    const files: Record<string, string> = {};
    const doomed: string[] = [];
    const kept: Record<string, string> = {};
    const dirs = pickDistinct(random, NOUNS, 3);
    pickDistinct(random, NOUNS, 9).forEach((name, i) => {
      const dir = `${root}/${dirs[i % 3]}`;
      const kind = i % 3 === 0 ? ext : random.pick(["txt", "conf", "log"]);
      const path = `${dir}/${name}.${kind}`;
      files[path] = filler(random, 1);
      if (kind === ext) doomed.push(path);
      else kept[path] = files[path] as string;
    });
    const decoy = `${root}/${dirs[0]}/${ext}-notes.txt`;
    files[decoy] = "not a match\n";
    kept[decoy] = "not a match\n";
    return {
      instruction: `Delete every file ending in .${ext} anywhere under ~/workspace, and nothing else.`,
      files,
      oracle: [`find workspace -name '*.${ext}'`, `find workspace -name '*.${ext}' -delete`],
      expect: { doomed, kept },
    };
  },
  check(view, world) {
    const e = world.expect as { doomed: string[]; kept: Record<string, string> };
    return [
      { name: "selected-deleted", ok: e.doomed.every((p) => view.read(p) === undefined) },
      keptIntact((p) => view.read(p), e.kept),
    ];
  },
};

const moveByExtension: TerminalTaskSpec = {
  id: "move-images",
  tier: "short",
  split: "train",
  summary: "Move every image of one extension from an inbox folder into a new folder.",
  maxSteps: 10,
  tags: ["mkdir", "mv", "glob"],
  build(random) {
    const ext = random.pick(["jpg", "png", "gif"]);
    const dest = random.pick(["images", "pictures", "media"]);
    const files: Record<string, string> = {};
    const moved: Record<string, string> = {};
    const kept: Record<string, string> = {};
    pickDistinct(random, NOUNS, 7).forEach((name, i) => {
      const kind = i % 2 === 0 ? ext : random.pick(["pdf", "txt"]);
      const content = `${kind} ${token(random)}\n`;
      files[`${HOME}/inbox/${name}.${kind}`] = content;
      if (kind === ext) moved[`${HOME}/${dest}/${name}.${kind}`] = content;
      else kept[`${HOME}/inbox/${name}.${kind}`] = content;
    });
    return {
      instruction: `Move every .${ext} file from ~/inbox into a new folder ~/${dest}. Other files stay in ~/inbox.`,
      files,
      oracle: [`mkdir -p ${dest}`, `mv inbox/*.${ext} ${dest}/`, `ls ${dest}`],
      expect: { moved, kept, ext },
    };
  },
  check(view, world) {
    const e = world.expect as { moved: Record<string, string>; kept: Record<string, string>; ext: string };
    return [
      { name: "moved", ok: Object.entries(e.moved).every(([p, c]) => view.read(p) === c) },
      { name: "inbox-clear", ok: view.filesUnder(`${HOME}/inbox`).every((p) => !p.endsWith(`.${e.ext}`)) },
      keptIntact((p) => view.read(p), e.kept),
    ];
  },
};

const makeLayout: TerminalTaskSpec = {
  id: "make-layout",
  tier: "short",
  split: "heldout",
  summary: "Build a directory layout with a few empty and non-empty files from a description.",
  maxSteps: 12,
  tags: ["mkdir", "touch", "echo"],
  build(random) {
    const name = pickDistinct(random, NOUNS, 1)[0] as string;
    const [a, b] = pickDistinct(random, ["src", "lib", "tests", "docs", "scripts", "assets"], 2) as [
      string,
      string,
    ];
    const sub = pickDistinct(random, NOUNS, 1)[0] as string;
    const title = `# ${name} ${token(random, 3)}`;
    const description = [
      `root: ~/${name}`,
      `folder: ${a}/`,
      `folder: ${b}/${sub}/`,
      `empty file: ${a}/.keep`,
      `file README.md, one line: ${title}`,
    ].join("\n");
    return {
      instruction: `Build the layout that ~/layout.txt describes (paths are relative to its root).`,
      files: { [`${HOME}/layout.txt`]: `${description}\n` },
      oracle: [
        "cat layout.txt",
        `mkdir -p ${name}/${a} ${name}/${b}/${sub}`,
        `touch ${name}/${a}/.keep`,
        `echo '${title}' > ${name}/README.md`,
      ],
      expect: { root: `${HOME}/${name}`, a, b, sub, title },
    };
  },
  check(view, world) {
    const e = world.expect as { root: string; a: string; b: string; sub: string; title: string };
    return [
      {
        name: "folders",
        ok: view.dirs.has(`${e.root}/${e.a}`) && view.dirs.has(`${e.root}/${e.b}/${e.sub}`),
      },
      { name: "keep-file", ok: view.read(`${e.root}/${e.a}/.keep`) === "" },
      sameText("readme", view.read(`${e.root}/README.md`), e.title),
    ];
  },
};

export const SHORT_FILE_TASKS: ReadonlyArray<TerminalTaskSpec> = [
  findCopy,
  renameTxt,
  deleteByRule,
  moveByExtension,
  makeLayout,
];
