import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// Runs each example as a user would, importing the package by its public entry points ("rehearsal",
// "rehearsal/envs/web", "rehearsal/testing"), resolved to this checkout's sources through the
// `rehearsal-source` export condition.
const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "rehearsal-examples-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function example(file: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["--conditions=rehearsal-source", "--import", "tsx", join("examples", file), ...args],
    { cwd: root, timeout: 240_000 },
  );
  return stdout;
}

const chromium = process.env.REHEARSAL_CHROMIUM ?? "/usr/bin/chromium";

describe("examples", () => {
  it("frozenlake-episodes: the oracle solves every map, the random policy does worse", async () => {
    const out = await example("frozenlake-episodes.ts");
    expect(out).toContain("oracle: 12 episodes, success rate 1.00");
    const random = Number(/random: 12 episodes, success rate ([\d.]+)/.exec(out)?.[1]);
    expect(random).toBeLessThan(1);
  }, 300_000);

  it("search-and-export: verified search, then a TRL file with one record per unique step", async () => {
    const out = await example("search-and-export.ts", dir);
    const records = Number(/(\d+) SFT records/.exec(out)?.[1]);
    expect(records).toBeGreaterThan(0);
    const lines = readFileSync(join(dir, "sft.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(records);
    expect((JSON.parse(lines[0]!) as { messages: unknown[] }).messages).toHaveLength(3);
  }, 300_000);

  it.skipIf(!existsSync(chromium))(
    "web-episode: the oracle solves click-button in Chromium",
    async () => {
      const out = await example("web-episode.ts", "click-button");
      expect(out).toMatch(/click-button: complete, success true, \d+ steps, \d+ stored/);
    },
    300_000,
  );

  it("environment-conformance.test.ts: the rehearsal/testing kit passes on FrozenLake", async () => {
    const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
    const { stdout } = await run(process.execPath, [vitest, "run", "--config", "examples/vitest.config.ts"], {
      cwd: root,
      timeout: 240_000,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    expect(stdout).toMatch(/Tests\s+10 passed/);
  }, 300_000);
});
