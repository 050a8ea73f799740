// Single-line commands that start with no whitespace skip just-bash's script normalizing
// (`rawScript`). Differential check: on the same files, the sandbox's results equal a plain just-bash
// shell's (normalizing on) for a few hundred generated commands, quoting, comments and here-doc
// markers included; and what needs normalizing still gets it.
import { Bash, InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { createRandom } from "../../../src/core/random.ts";
import {
  createSandboxShell,
  needsNoNormalizing,
  parseTerminalConfig,
  type SavedEntry,
} from "../../../src/envs/terminal/index.ts";

const FILES: Record<string, string> = {
  "/w/a.txt": "alpha\n  beta\n\tgamma\nalpha beta\n",
  "/w/b.md": "# title\n<<EOF\nEOF\n",
  "/w/sub/c.csv": "id,name\n2,bo\n1,al\n",
};

const HEADS = ["cat", "grep -n", "wc -l", "head -2", "sort", "tail -n +2", "cut -c1-3", "ls", "echo"];
const ARGS = ["a.txt", "sub/c.csv", "'a.txt'", '"b.md"', "a\\ .txt", "missing", "*.txt", "sub/*"];
const TAILS = [
  "",
  " ",
  "\t",
  " # comment",
  " | sort -r",
  " | grep -c a",
  " <<EOF",
  " && echo '  x  '",
  ' ; echo "<<X"',
  " 2>&1",
  " || echo 'fail\tsoft'",
];

function commands(): string[] {
  const random = createRandom("raw-script-test");
  const out = new Set<string>(["echo   spaced    words", "printf '%s\\n' '  lead'", "cat <<'EOF'"]);
  while (out.size < 300) {
    const head = HEADS[random.int(HEADS.length)] as string;
    const arg = head === "echo" ? "'  a  b  '" : (ARGS[random.int(ARGS.length)] as string);
    const pattern = head.startsWith("grep") ? " alpha" : "";
    out.add(`${head}${pattern} ${arg}${TAILS[random.int(TAILS.length)]}`);
  }
  return [...out];
}

async function plainShell(): Promise<Bash> {
  const fs = new InMemoryFs();
  for (const [path, text] of Object.entries(FILES)) await fs.writeFile(path, text);
  return new Bash({ fs, cwd: "/w" });
}

function entries(): SavedEntry[] {
  return [
    { path: "/w", kind: "dir", mode: 0o755 },
    { path: "/w/sub", kind: "dir", mode: 0o755 },
    ...Object.entries(FILES).map(([path, text]): SavedEntry => ({ path, kind: "file", mode: 0o644, text })),
  ];
}

describe("terminal raw scripts", () => {
  it("tells single-line scripts without leading whitespace from the rest", () => {
    expect(needsNoNormalizing("ls -l")).toBe(true);
    expect(needsNoNormalizing("echo 'a\tb'  ")).toBe(true);
    expect(needsNoNormalizing(" ls")).toBe(false);
    expect(needsNoNormalizing("\tls")).toBe(false);
    expect(needsNoNormalizing("cat <<EOF\n  x\nEOF")).toBe(false);
    expect(needsNoNormalizing("echo a\necho b")).toBe(false);
  });

  it("gives the same results as just-bash with normalizing, over generated commands", async () => {
    const limits = parseTerminalConfig({}).limits;
    const shell = await createSandboxShell(limits, entries());
    const plain = await plainShell();
    const random = createRandom("raw-script-run");
    const env = { HOME: "/w", PATH: "/usr/bin:/bin", PWD: "/w" };
    const list = commands();
    expect(list.filter(needsNoNormalizing).length).toBeGreaterThanOrEqual(200);
    for (const command of list) {
      const ours = await shell.run(command, "/w", env, random);
      const theirs = await plain.exec(command, { cwd: "/w", env, replaceEnv: true });
      expect({ out: ours.stdout, err: ours.stderr, code: ours.exitCode }, command).toEqual({
        out: theirs.stdout,
        err: theirs.stderr,
        code: theirs.exitCode,
      });
    }
  });

  it("still normalizes multi-line scripts and leading whitespace", async () => {
    const shell = await createSandboxShell(parseTerminalConfig({}).limits, entries());
    const random = createRandom("raw-script-lines");
    const env = { HOME: "/w", PATH: "/usr/bin:/bin", PWD: "/w" };
    expect((await shell.run("   echo lead", "/w", env, random)).stdout).toBe("lead\n");
    const heredoc = await shell.run("cat <<EOF\n  kept\n\tas is\nEOF\n  echo after", "/w", env, random);
    expect(heredoc.stdout).toBe("  kept\n\tas is\nafter\n");
  });
});
