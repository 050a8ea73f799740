// The fast path (`src/envs/terminal/fast-path.ts`) against just-bash: two shells over the same files,
// one with the fast path and one without, play the same generated command sequences; every outcome
// (stdout, stderr, exit code, the environment in its key order), the saved file system after each
// command and the command hash table (`hash`, run by just-bash on both) must be identical, and the
// sandbox's incremental file-system read must equal a full one. The states
// cover existing and missing files, directories, nested paths, `..`, system paths, trailing slashes,
// non-UTF-8 content (a shell holding symlinks keeps the fast path off); the commands cover every fast form, the errors next to them and forms
// that must fall back (options, globs, quotes, variables, pipes).
import { describe, expect, it } from "vitest";
import { createRandom, type Random } from "../../../src/core/random.ts";
import {
  createSandboxShell,
  type SandboxShell,
  type SavedEntry,
  TERMINAL_BASE_ENV,
} from "../../../src/envs/terminal/index.ts";
import { dir, file, HOME, limits } from "./saved-entries.ts";

function states(): SavedEntry[][] {
  const base = [
    dir(HOME),
    dir("/tmp"),
    dir(`${HOME}/d`),
    dir(`${HOME}/d/e`),
    dir(`${HOME}/empty`),
    file(`${HOME}/a.txt`, "alpha\nbeta\n"),
    file(`${HOME}/n.txt`, "one\ntwo\nthree"),
    file(`${HOME}/b.md`, "# b\n"),
    file(`${HOME}/d/c.csv`, "id,name\n1,al\n"),
    file(`${HOME}/d/e/deep.txt`, "deep\n"),
    file(`${HOME}/u.txt`, "héllo wörld ✓\n"),
    file(`${HOME}/x=1,y@2.txt`, "odd name\n"),
    file(`${HOME}/z.txt`, "b\nB\na\nA\n_x\n-y\n10\n9\n\né\ne\nalpha beta\n"),
    file(`${HOME}/e.txt`, ""),
    file(`${HOME}/nl.txt`, "\n\n"),
    file(`${HOME}/nul.txt`, "a\0b\nab\n"),
    file(`${HOME}/k.csv`, "key,val\nb,2\na,1\nB,3\na,0\n10,x\n9,y\nb\n,z\n"),
    file(`${HOME}/l.log`, "a DEBUG b\nDEBUG\nx DEBUG y\n 500\nq 500\nGET /a 500 x\n"),
    file(`${HOME}/d/old.bak`, "old\n"),
    file(`${HOME}/d/e/y.bak`, "y\n"),
    file(`${HOME}/d/.h.bak`, "h\n"),
  ];
  const binary: SavedEntry = { path: `${HOME}/bin.dat`, kind: "file", mode: 0o644, base64: "/wABgv8=" };
  return [
    base,
    [...base, binary],
    [dir(HOME), dir("/tmp")],
    [...base, { path: `${HOME}/link`, kind: "symlink", mode: 0o777, target: `${HOME}/d` }],
    [...base.filter((e) => e.path !== `${HOME}/d/e/deep.txt` && e.path !== `${HOME}/d/e`)],
  ];
}

const PATHS = [
  "a.txt",
  "n.txt",
  "b.md",
  "u.txt",
  "bin.dat",
  "missing",
  "d",
  "d/",
  "d/c.csv",
  "d/e",
  "d/e/deep.txt",
  "d/missing/x",
  "empty",
  "new",
  "new.txt",
  "d/new.txt",
  "..",
  ".",
  "/",
  "/tmp",
  "/tmp/t.txt",
  "/usr/bin/cat",
  "/usr/bin",
  "/dev/null",
  "/proc",
  "x=1,y@2.txt",
  "a.txt/x",
  "../user/a.txt",
  "z.txt",
  "e.txt",
  "nl.txt",
  "nul.txt",
  "link",
  "link/c.csv",
  "link/new.txt",
];
const WORDS = [
  "'# two words'",
  "' lead  gap '",
  "hi",
  "1.2.3",
  "'# quoted text'",
  "'a\"b'",
  "-n",
  "''",
  "x=y",
  "a,b",
  "done",
  "%s",
];

function pick<T>(random: Random, items: ReadonlyArray<T>): T {
  return items[random.int(items.length)] as T;
}

function command(random: Random): string {
  const p = () => pick(random, PATHS);
  const w = () => pick(random, WORDS);
  // Mostly the text files (and a few other paths) for the text commands.
  const t = () =>
    random.int(4) === 0
      ? p()
      : pick(random, ["a.txt", "n.txt", "z.txt", "e.txt", "nl.txt", "nul.txt", "d/c.csv", "u.txt"]);
  switch (random.int(28)) {
    case 0:
      return `cat ${p()}`;
    case 1:
      return `cat ${p()} ${p()}`;
    case 2:
      return `cd ${p()}`;
    case 3:
      return pick(random, [
        "pwd",
        "pwd -P",
        "pwd x",
        "cd",
        "cd -",
        "cd ~",
        "hash",
        "ls",
        `ls ${p()}`,
        `find ${p()}`,
      ]);
    case 4:
      return `mkdir ${p()}`;
    case 5:
      return `mkdir -p ${p()} ${p()}`;
    case 6:
      return `echo ${w()} ${w()}`;
    case 7:
      return `echo ${w()} > ${p()}`;
    case 8:
      return `echo ${w()} ${w()} >> ${p()}`;
    case 9:
      return `touch ${p()} ${pick(random, ["", ` ${p()}`])}`.trimEnd();
    case 10:
      return pick(random, [
        `${pick(random, ["cp", "mv"])} ${p()} ${p()}`,
        `mv ${pick(random, MV_GLOBS)} ${pick(random, ["empty", "d/e/", "d", "missing/", "a.txt", "/tmp"])}`,
        `mv ${p()} ${p()} ${pick(random, ["empty", "d/e", "d/"])}`,
      ]);
    case 11:
      return `rm ${pick(random, ["", "-r "])}${p()}${pick(random, ["", ` ${p()}`])}`;
    case 12:
      return pick(random, [
        `head -${pick(random, ["0", "1", "2", "10", "x"])} ${p()}`,
        `head -n ${pick(random, ["0", "1", "3", "-1"])} ${p()}`,
        `head -1 ${p()} ${p()}`,
        `rm -r ${p()}`,
        `rm -rf ${p()}`,
        `cat -n ${p()}`,
        `cp -r ${p()} ${p()}`,
        `rm -f ${p()}`,
        `mkdir -v ${p()}`,
      ]);
    case 13:
      return pick(random, [`cat *.txt`, `echo $HOME`, `cat "${p()}"`, `cat ${p()} | sort`, `echo hi>${p()}`]);
    case 14:
      return pick(random, [
        `cd ${p()} && pwd`,
        `cat ${p()}; pwd`,
        `echo ${w()}  ${w()}`,
        `echo 'a'b`,
        `echo 'it''s'`,
        `ls -a ${p()}`,
        `mkdir  -p ${p()}`,
      ]);
    case 16:
    case 17:
    case 18:
    case 19: {
      const n = pick(random, ["0", "1", "2", "3", "10"]);
      const word = pick(random, [
        ...["a", "a", "e", "e", "al", "t", "id", "1", "x=1", "id,name", "B", "/"],
        ...["-v", "a.b", "ö", "one", "%s", "'a'"],
      ]);
      return pick(random, [
        `wc -l ${t()}`,
        `wc -l ${t()}`,
        `wc ${t()}`,
        `wc -l ${t()} ${t()}`,
        `sort ${t()}`,
        `sort ${t()}`,
        `sort -r ${t()}`,
        `sort ${t()} ${t()}`,
        `grep ${word} ${t()}`,
        `grep ${word} ${t()}`,
        `grep -c ${word} ${t()}`,
        `tail -n ${n} ${t()}`,
        `tail -${n} ${t()}`,
        `tail -n +2 ${t()}`,
        `tail ${t()}`,
        `head -n ${n} ${t()}`,
      ]);
    }
    case 20:
    case 21:
    case 22:
    case 23:
      return pipeline(random, t);
    case 24:
    case 25:
      return `${pipeline(random, t)} ${pick(random, [">", ">>"])} ${pick(random, [...REDIRECTS, p()])}`;
    case 26:
      return pick(random, [
        `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)}`,
        `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)}`,
        `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)} -delete`,
        `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)} -print`,
        `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)} | wc -l`,
        `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)} | wc -l > ${pick(random, REDIRECTS)}`,
        `find ${pick(random, FIND_ROOTS)} -type f -name ${pick(random, NAME_GLOBS)}`,
      ]);
    case 27:
      return `${pick(random, ["cat", "sort", "grep a", "wc -l", "tail -n +2", "cut -d, -f1"])} ${t()} > ${pick(random, [...REDIRECTS, t()])}`;
    default:
      return pick(random, ["export PATH=/bin", "export CDPATH=/tmp", "readonly OLDPWD", "shopt -s xpg_echo"]);
  }
}

/** Redirection targets: new names, existing text files, a directory, a system path, a missing directory. */
const REDIRECTS = ["out.txt", "d/out.txt", "a.txt", "k.csv", "d", "/usr/bin/x", "nodir/out.txt", "d/e/o.txt"];
const FIND_ROOTS = [".", "d", "d/", "d/e", "empty", "a.txt", "missing", "../user", "./d"];
const NAME_GLOBS = [
  "'*.bak'",
  "'*.txt'",
  "'*'",
  "'c.csv'",
  "'d*'",
  "'*.BAK'",
  "*.txt",
  "old.bak",
  "'?.txt'",
  "'e'",
];
/** grep patterns: fixed words, quoted fixed texts (anchored or not), and ones with regex or option meaning. */
const PATTERNS = [
  "a",
  "DEBUG",
  "' DEBUG '",
  "' 500$'",
  "'^a'",
  "'^q 500$'",
  "'500 x'",
  "'a.b'",
  "'-v'",
  "'^-v'",
];

/** mv sources with globs: matching files, hidden files, a directory, nothing; a glob in a directory name. */
const MV_GLOBS = [
  "*.txt",
  "d/*.bak",
  "d/*",
  "*.md",
  "d/.*",
  "*.none",
  "d/e/*",
  "*",
  "d*/c.csv",
  "'*.txt'",
  "a*.txt b.md",
];
const FORM_SWEEP_FILES = [
  "k.csv",
  "l.log",
  "d/c.csv",
  "z.txt",
  "u.txt",
  "n.txt",
  "e.txt",
  "nul.txt",
  "bin.dat",
];
/** Redirections of readers, and the ones that must fall back (the target is read, listed or a directory). */
const REDIRECTED = [
  "tail -n +2 k.csv | sort -t, -k1,1 > s.txt",
  "cat s.txt",
  "grep -c DEBUG l.log > d/n.txt",
  "grep ' 500$' l.log >> d/n.txt",
  "cat d/n.txt",
  "tail -n +2 k.csv | cut -d, -f2 >> d/n.txt",
  "sort k.csv > k.csv",
  "cat a.txt >> a.txt",
  "find . -name '*.bak' > f.txt",
  "find d -name '*.bak' | wc -l > count.txt",
  "find d -name '*.bak' > d/list.txt",
  "cut -d, -f1 k.csv > d",
  "cat missing | wc -l > c.txt",
  "grep -c nothing l.log > c.txt",
  "sort z.txt > nodir/s.txt",
  "cat c.txt count.txt s.txt",
];

/** The first command of a pipeline (it reads a file), then one to three filters (they read stdin). */
function pipeline(random: Random, t: () => string): string {
  const text = [
    "k.csv",
    "l.log",
    "d/c.csv",
    "a.txt",
    "n.txt",
    "z.txt",
    "u.txt",
    "e.txt",
    "nl.txt",
    "missing",
  ];
  const f = () => (random.int(5) === 0 ? t() : pick(random, text));
  const head = pick(random, [
    `cat ${f()}`,
    `tail -n +2 ${f()}`,
    `tail -n +${pick(random, ["0", "1", "3", "20"])} ${f()}`,
    `sort ${f()}`,
    `sort -t, -k1,1 ${f()}`,
    `sort -t, -k2,2 ${f()}`,
    `cut -d, -f${pick(random, ["1", "2", "3"])} ${f()}`,
    `grep ${pick(random, PATTERNS)} ${f()}`,
    `grep -c ${pick(random, PATTERNS)} ${f()}`,
    `head -n 3 ${f()}`,
    `find ${pick(random, FIND_ROOTS)} -name ${pick(random, NAME_GLOBS)}`,
    `ls ${pick(random, [".", "d"])}`,
  ]);
  const filters = [
    "sort",
    "sort -t, -k1,1",
    "sort -t: -k2,2",
    "sort -k1,1",
    "sort -r",
    "cut -d, -f2",
    "cut -d, -f1",
    "cut -f1",
    "wc -l",
    "wc",
    "tail -n +2",
    "tail -n 2",
    "head -n 1",
    "head -2",
    "grep a",
    "grep -c a",
    `grep ${pick(random, PATTERNS)}`,
    "cat",
    "uniq",
    "cat a.txt",
  ];
  const n = 1 + random.int(3);
  return [head, ...Array.from({ length: n }, () => pick(random, filters))].join(" | ");
}

interface Session {
  shell: SandboxShell;
  cwd: string;
  env: Record<string, string>;
}

/** The forms the fast path must answer at least sometimes, by a pattern of the command. */
const FORMS: ReadonlyArray<[string, RegExp]> = [
  ["pipeline", / \| /],
  ["pipeline of three", / \| .* \| /],
  ["redirected reader", /^(cat|sort|grep|wc|tail|cut|find|head)\b.*[^>]>>? \S+$/],
  ["find -name", /^find \S+ -name \S+$/],
  ["find -delete", /-delete$/],
  ["sort by key", /sort -t. -k/],
  ["cut", /cut -d, -f/],
  ["quoted grep", /grep (-c )?'/],
  ["grep -c", /grep -c/],
  ["tail from line", /tail -n \+/],
  ["mv glob", /^mv .*\*/],
];
const fastForms = new Map<string, number>();

/** Commands the fast path answered, by name. */
const fastNames = new Map<string, number>();

async function step(s: Session, cmd: string, i: number) {
  const out = await s.shell.run(cmd, s.cwd, s.env, createRandom("fast-path-test", i));
  const name = cmd.split(" ")[0] as string;
  if (out.fast) fastNames.set(name, (fastNames.get(name) ?? 0) + 1);
  for (const [form, re] of FORMS)
    if (out.fast && re.test(cmd)) fastForms.set(form, (fastForms.get(form) ?? 0) + 1);
  s.env = { ...out.env };
  s.cwd = out.env.PWD?.startsWith("/") ? out.env.PWD : s.cwd;
  const { fast: _marker, ...outcome } = out;
  return JSON.stringify(outcome);
}

describe("terminal fast path", () => {
  it("gives just-bash's outcome, file system and hash table on generated command sequences", async () => {
    const random = createRandom("fast-path-differential");
    let commands = 0;
    let fast = 0;
    const mismatches: string[] = [];
    // In the symlink state (index 3) the fast path stays off; it checks the saved trees (writes through
    // the link store entries under the link's path) and their exact restore.
    for (const [k, entries] of states().entries()) {
      for (let round = 0; round < 16; round++) {
        const start = { cwd: HOME, env: { ...TERMINAL_BASE_ENV } };
        const a: Session = { shell: await createSandboxShell(limits, entries), ...structuredClone(start) };
        const b: Session = {
          shell: await createSandboxShell(limits, entries, { fastPath: false }),
          ...structuredClone(start),
        };
        const length = 8 + random.int(8);
        const sequence = [...Array.from({ length }, () => command(random)), "hash", "hash -l"];
        for (const [i, cmd] of sequence.entries()) {
          commands++;
          const [ra, rb] = [await step(a, cmd, i), await step(b, cmd, i)];
          const [fa, fb] = [JSON.stringify(await a.shell.save()), JSON.stringify(await b.shell.save())];
          // The incremental tree (only the paths a change named are read again) equals a full read.
          const full = JSON.stringify(await a.shell.save({ reread: true }));
          if (ra !== rb || fa !== fb || fa !== full) {
            mismatches.push(`state ${k}: ${sequence.slice(0, i + 1).join(" ; ")}\n fast ${ra}\n bash ${rb}`);
            break;
          }
        }
        // A snapshot of the last state restores exactly.
        const saved = await a.shell.save();
        const restored = await createSandboxShell(limits, saved, { exact: true });
        expect(await restored.save({ reread: true })).toEqual(saved);
        fast += a.shell.fastCommands;
        expect(b.shell.fastCommands).toBe(0);
      }
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(commands).toBeGreaterThanOrEqual(400);
    // The fast path must actually engage (a fast path that never answers would pass the comparison).
    expect(fast / commands).toBeGreaterThan(0.08);
  }, 240_000);

  it("gives just-bash's output for every text command over every text file", async () => {
    const files = ["a.txt", "n.txt", "z.txt", "e.txt", "nl.txt", "nul.txt", "d/c.csv", "u.txt", "bin.dat"];
    const words = ["a", "e", "al", "t", "id", "1", "x=1", "id,name", "B", "/", "é", "-v", "a.b", "'a'"];
    const sweep = files.flatMap((f) => [
      `wc -l ${f}`,
      `wc ${f}`,
      `sort ${f}`,
      `sort -r ${f}`,
      `tail ${f}`,
      `tail -n +2 ${f}`,
      ...["0", "1", "2", "3", "10"].flatMap((n) => [
        `tail -n ${n} ${f}`,
        `tail -${n} ${f}`,
        `head -n ${n} ${f}`,
      ]),
      ...words.map((w) => `grep ${w} ${f}`),
    ]);
    sweep.push(
      ...[
        "d",
        "d/",
        "d/e",
        ".",
        "empty",
        "a.txt",
        "missing",
        "./d",
        "d/../d",
        "-name",
        "/tmp",
        "x=1,y@2.txt",
      ].map((f) => `find ${f}`),
      "cd d && find .",
      "cd ..",
      "find d -name c.csv",
      ...FIND_ROOTS.flatMap((r) =>
        NAME_GLOBS.flatMap((g) => [`find ${r} -name ${g}`, `find ${r} -name ${g} | wc -l`]),
      ),
      ...FORM_SWEEP_FILES.flatMap((f) => [
        `tail -n +2 ${f} | sort -t, -k1,1`,
        `tail -n +2 ${f} | cut -d, -f2`,
        `cat ${f} | sort | head -n 2`,
        `cut -d, -f2 ${f} | sort | tail -n 1`,
        `cat ${f} | wc -l`,
        `sort -t, -k2,2 ${f}`,
        `cut -d, -f1 ${f}`,
        ...PATTERNS.flatMap((w) => [`grep ${w} ${f}`, `grep -c ${w} ${f}`, `cat ${f} | grep ${w}`]),
      ]),
      ...REDIRECTED,
      ...["'*.txt' -delete", "'*.bak' -delete", "'e' -delete", "'*.bak' -delete"].map(
        (g) => `find d -name ${g}`,
      ),
      ...MV_GLOBS.map((g, i) => `mv ${g} ${["empty", "d/e/", "d", "/tmp"][i % 4]}`),
      // A write under the command stubs (just-bash's) turns the fast path off: last.
      "wc -l a.txt > /usr/bin/wc",
    );
    const mismatches: string[] = [];
    const before = new Map(fastNames);
    const beforeForms = new Map(fastForms);
    for (const k of [0, 1, 4]) {
      const entries = states()[k] ?? [];
      const start = { cwd: HOME, env: { ...TERMINAL_BASE_ENV } };
      const a: Session = { shell: await createSandboxShell(limits, entries), ...structuredClone(start) };
      const b: Session = {
        shell: await createSandboxShell(limits, entries, { fastPath: false }),
        ...structuredClone(start),
      };
      for (const [i, cmd] of [...sweep, "hash -l"].entries()) {
        const [ra, rb] = [await step(a, cmd, i), await step(b, cmd, i)];
        const [fa, fb] = [JSON.stringify(await a.shell.save()), JSON.stringify(await b.shell.save())];
        if (ra !== rb || fa !== fb) mismatches.push(`state ${k}: ${cmd}\n fast ${ra}\n bash ${rb}`);
      }
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    // Each text command is answered by the fast path (a form that never engages would pass too).
    // Each form of the pipelines, redirections and `find` expressions engages.
    for (const [form] of FORMS)
      expect((fastForms.get(form) ?? 0) - (beforeForms.get(form) ?? 0), form).toBeGreaterThan(2);
    for (const name of ["wc", "sort", "grep", "tail", "head", "cut"])
      expect((fastNames.get(name) ?? 0) - (before.get(name) ?? 0), name).toBeGreaterThan(10);
    expect((fastNames.get("find") ?? 0) - (before.get("find") ?? 0)).toBeGreaterThan(60);
  }, 240_000);

  it("leaves a command that hits the file-system limit to just-bash (same error, nothing changed)", async () => {
    const entries = [dir(HOME), file(`${HOME}/big.txt`, "x".repeat(90))];
    // The smallest limit that holds these files (just-bash's own layout included): 10 bytes to spare.
    let [low, high] = [1, 1 << 20];
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const fits = await createSandboxShell({ ...limits, maxFileSystemBytes: mid }, entries).then(
        () => true,
        () => false,
      );
      [low, high] = fits ? [low, mid] : [mid + 1, high];
    }
    const small = { ...limits, maxFileSystemBytes: low + 10 };
    const results: string[] = [];
    for (const fastPath of [true, false]) {
      const shell = await createSandboxShell(small, entries, { fastPath });
      const env = { ...TERMINAL_BASE_ENV };
      const outs = [];
      // just-bash lets the limit error of a redirection escape `exec`; the shell turns it into an error
      // result (exit code 1), and the fast path leaves such a command to just-bash.
      for (const cmd of ["echo 0123456789abcdef > f.txt", "cp big.txt copy.txt", "echo ok >> big.txt"])
        outs.push(await shell.run(cmd, HOME, env, createRandom("limit")).then(({ fast: _f, ...o }) => o));
      results.push(JSON.stringify([outs, await shell.save()]));
      if (fastPath) expect(shell.fastCommands).toBe(1);
    }
    expect(results[0]).toBe(results[1]);
    expect(results[0]).toContain("byte limit exceeded");
    expect(results[0]).toContain("(limits.maxFileSystemBytes)");
    expect(results[0]).toContain("xok");
  });

  it("stays off with defense in depth and for a shell that holds symlinks", async () => {
    const guarded = await createSandboxShell({ ...limits, defenseInDepth: true }, states()[0] ?? []);
    await guarded.run("cat a.txt", HOME, { ...TERMINAL_BASE_ENV }, createRandom("g"));
    expect(guarded.fastCommands).toBe(0);
    const linked = await createSandboxShell(limits, states()[3] ?? []);
    await linked.run("cat a.txt", HOME, { ...TERMINAL_BASE_ENV }, createRandom("l"));
    expect(linked.fastCommands).toBe(0);
    const plain = await createSandboxShell(limits, states()[0] ?? []);
    const env = { ...TERMINAL_BASE_ENV };
    const out = await plain.run("cat a.txt", HOME, env, createRandom("p"));
    expect([out.stdout, plain.fastCommands]).toEqual(["alpha\nbeta\n", 1]);
    // A link made by a command turns it off for the rest of the shell's life.
    await plain.run("ln -s d link", HOME, env, createRandom("p"));
    const through = await plain.run("cat link/c.csv", HOME, env, createRandom("p"));
    await plain.run("cat a.txt", HOME, env, createRandom("p"));
    expect([through.stdout, plain.fastCommands]).toEqual(["id,name\n1,al\n", 1]);
  });
});
