import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { loadTreeNodes } from "../../src/search/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { compiledBin } from "../cli/compiled-bin.ts";
import { runMain } from "../cli/run-cli.ts";
import { leafPaths } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TASKS = ["4x4", "8x8", ...Array.from({ length: 8 }, (_, i) => `random-5-${i}`)].join(",");
const ARGS = [
  "search",
  "--env",
  "frozenlake",
  "--tasks",
  TASKS,
  "--policy",
  "random",
  "--seed",
  "42",
  "--live-envs",
  "3",
];

/**
 * Runs the bin in a child process. With `killWhen`, polls every 100 ms and, once it holds, kills the process with SIGKILL
 * after a further `extraMs` — so the kill lands at a random point after real progress, however slow
 * the machine is.
 */
async function runCli(
  args: string[],
  killWhen?: () => boolean,
  extraMs = 0,
): Promise<{ killed: boolean; code: number | null; stdout: string }> {
  const bin = await compiledBin(); // the real bin, installed layout (see compiled-bin.ts)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "1" },
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    let killed = false;
    let armed = false;
    const poll = killWhen
      ? setInterval(() => {
          if (armed || !killWhen()) return;
          armed = true;
          setTimeout(() => {
            killed = child.kill("SIGKILL");
          }, extraMs);
        }, 100)
      : undefined;
    child.on("exit", (code) => {
      if (poll) clearInterval(poll);
      resolve({ killed: killed && code === null, code, stdout });
    });
  });
}

function leavesByTask(storeDir: string, runId: string): Record<string, string[]> {
  const store = openSqliteStore({ dir: storeDir });
  try {
    const out: Record<string, string[]> = {};
    for (const tree of store.listTrees(runId)) out[tree.taskId] = leafPaths(loadTreeNodes(store, tree.id));
    return out;
  } finally {
    store.close();
  }
}

function searchRunId(storeDir: string): string | undefined {
  const store = openSqliteStore({ dir: storeDir });
  try {
    return store.listRuns({ kind: "search" })[0]?.id;
  } finally {
    store.close();
  }
}

function runStatus(storeDir: string, runId: string): string | undefined {
  const store = openSqliteStore({ dir: storeDir });
  try {
    return store.getRun(runId)?.status;
  } finally {
    store.close();
  }
}

/** Stored nodes of a run: > 0 means a kill landed in the middle of the search. */
function storedNodes(storeDir: string, runId: string): number {
  const store = openSqliteStore({ dir: storeDir });
  try {
    return store.listTrees(runId).reduce((a, t) => a + store.listNodes(t.id).length, 0);
  } finally {
    store.close();
  }
}

describe("search resume after SIGKILL", () => {
  it("kills the search at random points ≥ 5 times; the resumed run's verified leaves equal an uninterrupted run's", async () => {
    const reference = join(dir, "reference");
    const full = await runMain([...ARGS, "--store", reference, "--json"]);
    expect(full.code).toBe(0);
    const refRun = JSON.parse(full.stdout).runId as string;
    const expected = leavesByTask(reference, refRun);
    expect(Object.keys(expected)).toHaveLength(10);
    expect(Object.values(expected).flat().length).toBeGreaterThan(100);

    const killedStore = join(dir, "killed");
    const random = createRandom("resume-kill-test");
    let kills = 0;
    let runId: string | undefined;
    for (let attempt = 0; attempt < 30; attempt++) {
      if (kills >= 5 && runId && runStatus(killedStore, runId) === "complete") break;
      const args = runId
        ? ["search", "--resume", runId, "--store", killedStore]
        : [...ARGS, "--store", killedStore];
      const before = runId ? storedNodes(killedStore, runId) : 0;
      // Kill once this attempt has stored new nodes, at a random moment after that; after five kills, let it finish.
      const progressed = () => {
        const id = runId ?? searchRunId(killedStore);
        return id !== undefined && storedNodes(killedStore, id) > before;
      };
      // The killed attempts need a process of their own; the last one runs in this process.
      const r =
        kills >= 5
          ? { killed: false, ...(await runMain(args)) }
          : await runCli(args, progressed, random.int(600));
      runId ??= searchRunId(killedStore);
      const status = runId ? runStatus(killedStore, runId) : undefined;
      if (r.killed && status !== "complete") kills += 1;
      else if (!r.killed && r.code !== 0) throw new Error(`search exited with code ${r.code}`);
    }
    expect(kills).toBeGreaterThanOrEqual(5);
    expect(runId).toBeDefined();
    expect(leavesByTask(killedStore, runId as string)).toEqual(expected);
  }, 300_000);
});
