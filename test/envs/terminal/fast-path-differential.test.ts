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
  switch (random.int(20)) {
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
      return `${pick(random, ["cp", "mv"])} ${p()} ${p()}`;
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
    default:
      return pick(random, ["export PATH=/bin", "export CDPATH=/tmp", "readonly OLDPWD", "shopt -s xpg_echo"]);
  }
}

interface Session {
  shell: SandboxShell;
  cwd: string;
  env: Record<string, string>;
}

/** Commands the fast path answered, by name. */
const fastNames = new Map<string, number>();

async function step(s: Session, cmd: string, i: number) {
  const out = await s.shell.run(cmd, s.cwd, s.env, createRandom("fast-path-test", i));
  const name = cmd.split(" ")[0] as string;
  if (out.fast) fastNames.set(name, (fastNames.get(name) ?? 0) + 1);
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
      "find d -name c.csv",
    );
    const mismatches: string[] = [];
    const before = new Map(fastNames);
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
        if (ra !== rb) mismatches.push(`state ${k}: ${cmd}\n fast ${ra}\n bash ${rb}`);
      }
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
    // Each text command is answered by the fast path (a form that never engages would pass too).
    for (const name of ["wc", "sort", "grep", "tail", "head"])
      expect((fastNames.get(name) ?? 0) - (before.get(name) ?? 0), name).toBeGreaterThan(10);
    expect((fastNames.get("find") ?? 0) - (before.get("find") ?? 0)).toBeGreaterThan(6);
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
