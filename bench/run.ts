// Benchmarks, run by `npm run bench`. Figures are reported as ratios against a reference measured in
// the same run (never asserted on time in tests). Pass section names to run only some:
//   npm run bench -- frozenlake web
// `--json` prints one JSON document on stdout instead of the table (progress goes to stderr), with
// every section's figures, the node version and the git commit, so runs can be compared across
// commits: `npx tsx bench/run.ts --json env-step > a.json` (or `npm run -s bench -- --json`).
// Each section runs in a process of its own, so that no section's figures depend on what ran before it
// in the same process (after the web and search sections, the rollout loop ran 2-3x slower in-process:
// a larger heap and code already compiled for other environments' shapes).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchEnvStep } from "./env-step.ts";
import { benchFrozenLake } from "./frozenlake.ts";
import { benchNoise } from "./noise.ts";
import { benchSearch } from "./search.ts";
import { benchTerminal } from "./terminal.ts";
import { benchWeb } from "./web.ts";

type Section = () => Promise<Record<string, number | string | boolean>>;

const sections: Record<string, Section> = {
  "env-step": benchEnvStep,
  frozenlake: async () => ({ ...(await benchFrozenLake()) }),
  web: benchWeb,
  search: benchSearch,
  noise: benchNoise,
  terminal: benchTerminal,
  rollout: async () => (await import("./rollout.ts")).benchRollout(),
  worldmodel: async () => (await import("./worldmodel.ts")).benchWorldModel(),
  serve: async () => (await import("./serve.ts")).benchServe(),
  ui: async () => (await import("./ui.ts")).benchUi(),
  // `rehearsal run` (1000 FrozenLake episodes), `--help` and `noise list`: whole-process CPU-seconds.
  run: async () => (await import("./cli-start.ts")).benchCliStart(),
};

/** The checked-out commit (with `-dirty` when the tree has changes), or null outside a git checkout. */
function gitCommit(): string | null {
  try {
    const git = (...args: string[]) =>
      execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return `${git("rev-parse", "HEAD")}${git("status", "--porcelain", "--untracked-files=no") ? "-dirty" : ""}`;
  } catch {
    return null;
  }
}

/** Runs one section in this process and prints its figures as JSON on stdout (`--section NAME`). */
async function runSection(name: string): Promise<void> {
  const section = sections[name];
  if (!section) throw new Error(`unknown bench section ${name}`);
  process.stdout.write(`${JSON.stringify(await section())}\n`);
}

/** A section's figures, measured in a child process running this file with `--section`. */
function measureSection(name: string): Record<string, number | string | boolean> {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--section", name],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 },
  );
  const last = child.stdout?.trim().split("\n").pop();
  if (child.status !== 0 || !last) {
    console.error(`bench section ${name} failed (exit ${child.status ?? child.signal}); its error is above`);
    process.exit(1);
  }
  return JSON.parse(last) as Record<string, number | string | boolean>;
}

async function main(): Promise<void> {
  const json = process.argv.includes("--json");
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const names = wanted.length > 0 ? wanted : Object.keys(sections);
  // With --json, stdout carries only the JSON document.
  const say = (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
  const unknown = names.filter((n) => !sections[n]);
  if (unknown.length > 0) {
    console.error(`unknown bench section ${unknown.join(", ")}; known: ${Object.keys(sections).join(", ")}`);
    process.exit(2);
  }
  const results: Record<string, unknown> = {};
  for (const name of names) {
    say(`\n== ${name} ==`);
    const r = measureSection(name);
    results[name] = r;
    for (const [k, v] of Object.entries(r))
      say(`${k.padEnd(34)} ${typeof v === "number" ? v.toFixed(3) : String(v)}`);
  }
  const report = { node: process.version, commit: gitCommit(), sections: names, results };
  mkdirSync(join("bench", "results"), { recursive: true });
  const file = join("bench", "results", "latest.json");
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  say(`\nwrote ${file}`);
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

const sectionFlag = process.argv.indexOf("--section");
if (sectionFlag >= 0) await runSection(process.argv[sectionFlag + 1] ?? "");
else await main();
