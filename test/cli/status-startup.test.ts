import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Start-up stays light: each command loads the heavy packages it needs inside its action, so
 * `rehearsal --help` and `rehearsal noise list` load none of them, and a FrozenLake run with the
 * random policy loads SQLite but no browser, LLM client, chess or shell. Evidence: a module resolve
 * hook in the real bin's process (registered before tsx) writes every module it resolves to a file.
 */
const BIN = join(import.meta.dirname, "..", "..", "bin", "rehearsal.js");
const dir = mkdtempSync(join(tmpdir(), "rehearsal-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAVY = ["playwright-core", "better-sqlite3", "openai", "chess.js", "just-bash", "stockfish"];

const hook = join(dir, "record-resolves.mjs");
writeFileSync(
  hook,
  `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.REHEARSAL_TEST_RESOLVED, r.url + "\\\\n");
  return r;
}\`));
`,
);

/** The packages under node_modules that `args` loaded (resolved) in a fresh process, and its exit. */
function loadedPackages(name: string, args: string[]): { packages: Set<string>; code: number | null } {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(hook).href, BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, CI: "1", REHEARSAL_TEST_RESOLVED: log },
    timeout: 120_000,
  });
  const urls = readFileSync(log, "utf8").split("\n").filter(Boolean);
  expect(urls.length, `the hook recorded nothing: ${r.stderr}`).toBeGreaterThan(10);
  const packages = new Set(
    urls.flatMap((u) => {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
      return m ? [m[1] as string] : [];
    }),
  );
  return { packages, code: r.status };
}

describe("start-up loads only what the command needs", () => {
  it.each([
    ["help", ["--help"]],
    ["noise-list", ["noise", "list"]],
    ["run-help", ["run", "--help"]],
  ])(
    "%s loads none of playwright-core, better-sqlite3, openai, chess.js, just-bash, stockfish",
    (name, args) => {
      const { packages, code } = loadedPackages(name, args);
      expect(code).toBe(0);
      expect(packages.has("commander")).toBe(true);
      expect(HEAVY.filter((p) => packages.has(p))).toEqual([]);
    },
    120_000,
  );

  it("a FrozenLake run with the random policy loads SQLite, and no browser, LLM client, chess or shell", () => {
    const store = join(dir, "store");
    const { packages, code } = loadedPackages("run", [
      "run",
      "--env",
      "frozenlake",
      "--tasks",
      "4x4",
      "--policy",
      "random",
      "-n",
      "2",
      "--store",
      store,
    ]);
    expect(code).toBe(0);
    expect(packages.has("better-sqlite3")).toBe(true);
    expect(HEAVY.filter((p) => p !== "better-sqlite3" && packages.has(p))).toEqual([]);
  }, 120_000);
});
