// Whole-process CPU of the CLI, in CPU-seconds (user + system of the process and all its threads, as
// `process.cpuUsage()` reads them at exit, so a busy machine slows the figure less than wall time
// would): `rehearsal run` of 1000 FrozenLake 8x8 episodes with the random policy (a fresh SQLite store
// each time), `rehearsal --help` and `rehearsal noise list`, against an in-run reference, a bare
// `node` that does nothing. Two paths: the checkout's bin (sources through tsx) and, when `dist/` is
// built (`npm run build`), the compiled JavaScript an installed package runs. Run by bench/run.ts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { median } from "./stats.ts";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "rehearsal.js");
const DIST_MAIN = join(ROOT, "dist", "cli", "main.js");

/** The CPU-seconds of one fresh `node` process running `args`; it must exit 0. */
function processCpuSeconds(dir: string, args: string[]): number {
  const out = join(dir, "cpu.json");
  const hook = join(dir, "report-cpu.mjs");
  writeFileSync(
    hook,
    `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.cpuUsage())));\n`,
  );
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(hook).href, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`bench cli-start: ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const used = JSON.parse(readFileSync(out, "utf8")) as NodeJS.CpuUsage;
  rmSync(out);
  return (used.user + used.system) / 1e6;
}

/** CPU-seconds of the CLI's start-up and of a 1000-episode run; each figure the median of `rounds`. */
export async function benchCliStart(rounds = 3): Promise<Record<string, number | boolean>> {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-bench-cli-"));
  try {
    const compiledEntry = join(dir, "compiled.mjs");
    const compiled = existsSync(DIST_MAIN);
    if (compiled) {
      writeFileSync(
        compiledEntry,
        `import { main } from ${JSON.stringify(pathToFileURL(DIST_MAIN).href)};\nprocess.exitCode = await main(process.argv);\n`,
      );
    }
    let store = 0;
    const run = () => [
      "run",
      "--env",
      "frozenlake",
      "--tasks",
      "8x8",
      "--policy",
      "random",
      "--episodes",
      "1000",
      "--store",
      join(dir, `store-${store++}`),
    ];
    const figures: Record<string, number[]> = {};
    const add = (name: string, args: string[]) => {
      figures[name] ??= [];
      figures[name].push(processCpuSeconds(dir, args));
    };
    // Warm-up: tsx's transform cache and the file system cache.
    add("warmup", [BIN, "--help"]);
    add("warmup", [BIN, ...run()]);
    for (let round = 0; round < rounds; round++) {
      add("bareNodeCpuSeconds", ["-e", ""]);
      add("tsxRunCpuSeconds", [BIN, ...run()]);
      add("tsxHelpCpuSeconds", [BIN, "--help"]);
      add("tsxNoiseListCpuSeconds", [BIN, "noise", "list"]);
      if (compiled) {
        add("compiledRunCpuSeconds", [compiledEntry, ...run()]);
        add("compiledHelpCpuSeconds", [compiledEntry, "--help"]);
        add("compiledNoiseListCpuSeconds", [compiledEntry, "noise", "list"]);
      }
    }
    delete figures.warmup;
    const out: Record<string, number | boolean> = { compiledMeasured: compiled };
    for (const [name, xs] of Object.entries(figures)) out[name] = median(xs);
    const bare = out.bareNodeCpuSeconds as number;
    for (const name of Object.keys(figures)) {
      if (name !== "bareNodeCpuSeconds")
        out[name.replace(/CpuSeconds$/, "OverBareNode")] = (out[name] as number) / bare;
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
