import { execFile, execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, it } from "vitest";

// Packs the package as `npm publish` would (`npm pack`, whose `prepack` builds dist/), installs the
// tarball into an empty directory and runs the installed `rehearsal` there: the package carries
// everything it needs at run time (compiled code, page scripts, task pages) and no tsx.
//
// The checkout is copied to a temporary directory first (its git-listed files, with node_modules
// linked for the compiler), so the build never leaves a dist/ in the checkout and parallel runs do
// not collide. The install skips dependency install scripts and reuses the checkout's compiled
// better-sqlite3 addon (the same pinned version, the same Node): compiling SQLite takes minutes and
// tests better-sqlite3, not this package. REHEARSAL_PACK_NATIVE=1 runs the full install instead.
const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const chromium = process.env.REHEARSAL_CHROMIUM ?? "/usr/bin/chromium";
const LONG = 600_000;

/** The environment without npm's per-script variables (this test may itself run under `npm test`). */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

let tmp: string;
let app: string;
let files: string[];

async function npm(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run("npm", args, {
    cwd,
    env: { ...cleanEnv, ...env },
    timeout: LONG,
    maxBuffer: 64 << 20,
  });
  return stdout;
}

async function rehearsal(...args: string[]): Promise<string> {
  const { stdout } = await run(join(app, "node_modules", ".bin", "rehearsal"), args, {
    cwd: app,
    env: { ...cleanEnv, NO_COLOR: "1" },
    timeout: LONG,
    maxBuffer: 64 << 20,
  });
  return stdout;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "rehearsal-pack-"));
  const pkg = join(tmp, "pkg");
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f && existsSync(join(root, f)));
  for (const f of listed) {
    mkdirSync(dirname(join(pkg, f)), { recursive: true });
    copyFileSync(join(root, f), join(pkg, f));
  }
  symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"), "dir");

  // The build (`prepack`) emits without type-checking: `npm test` type-checks the same sources before
  // vitest, and the emitted files are the same.
  const packed = JSON.parse(
    await npm(["pack", "--json", "--pack-destination", tmp], pkg, { REHEARSAL_BUILD_NO_CHECK: "1" }),
  ) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  files = packed[0]!.files.map((f) => f.path);
  const tarball = join(tmp, packed[0]!.filename);

  app = join(tmp, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const native = process.env.REHEARSAL_PACK_NATIVE === "1";
  await npm(
    [
      "install",
      tarball,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      ...(native ? [] : ["--ignore-scripts"]),
    ],
    app,
  );
  if (!native) {
    const addon = join("better-sqlite3", "build", "Release", "better_sqlite3.node");
    mkdirSync(dirname(join(app, "node_modules", addon)), { recursive: true });
    copyFileSync(join(root, "node_modules", addon), join(app, "node_modules", addon));
  }
}, 2 * LONG);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// The checks run the installed package side by side (separate processes, separate stores).
describe("the packed package, installed into an empty directory", { concurrent: true }, () => {
  it("ships the compiled code and its assets, not the sources, and needs no tsx", ({ expect }) => {
    expect(files).toContain("dist/cli/main.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/testing/index.js");
    expect(files).toContain("dist/envs/web/page/agent.js");
    expect(files).toContain("dist/envs/web-tasks/tasks/click-button/index.html");
    expect(files).toContain("docs/methods/envs.md");
    expect(files.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    expect(existsSync(join(app, "node_modules", "tsx"))).toBe(false);
  });

  it(
    "runs `rehearsal tasks list --suite builtin` (text and --json)",
    async ({ expect }) => {
      expect(await rehearsal("tasks", "list", "--suite", "builtin")).toContain("click-button");
      const listed = JSON.parse(await rehearsal("--json", "tasks", "list", "--suite", "builtin")) as unknown;
      expect(JSON.stringify(listed)).toContain('"click-button"');
    },
    LONG,
  );

  it(
    "runs `rehearsal demo frozenlake`",
    async ({ expect }) => {
      const out = await rehearsal(
        "demo",
        "frozenlake",
        "--episodes",
        "3",
        "--store",
        join(tmp, "demo-store"),
      );
      expect(out).toMatch(/oracle/);
      expect(existsSync(join(tmp, "demo-store"))).toBe(true);
    },
    LONG,
  );

  it(
    "imports the library by its entry points",
    async ({ expect }) => {
      const script =
        'const m = await import("rehearsal"); const env = m.createFrozenLakeEnvironment({ slippery: false });' +
        'console.log(env.suite.get("4x4").id, typeof (await import("rehearsal/envs/web")).createWebEnvironment);';
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
        cwd: app,
        env: cleanEnv,
      });
      expect(stdout.trim()).toBe("4x4 function");
    },
    LONG,
  );

  it(
    "every entry point in package.json's exports loads from the installed package (testing needs vitest)",
    async ({ expect }) => {
      const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
        exports: Record<string, unknown>;
      };
      const entries = Object.keys(manifest.exports)
        .filter((k) => k !== "./package.json" && k !== "./testing")
        .map((k) => (k === "." ? "rehearsal" : `rehearsal/${k.slice(2)}`));
      const script = `for (const e of ${JSON.stringify(entries)}) { const m = await import(e); if (Object.keys(m).length === 0) throw new Error(e + " exports nothing"); } console.log("ok");`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
        cwd: app,
        env: cleanEnv,
      });
      expect(stdout.trim()).toBe("ok");
    },
    LONG,
  );

  it.skipIf(!existsSync(chromium))(
    "runs a web episode with the installed CLI",
    async ({ expect }) => {
      const out = await rehearsal(
        "--json",
        "run",
        "--env",
        "web",
        "--tasks",
        "click-button",
        "--policy",
        "oracle",
        "--episodes",
        "1",
        "--store",
        join(tmp, "web-store"),
      );
      expect(out).toMatch(/"successRate":\s*1\b/);
    },
    LONG,
  );
});
