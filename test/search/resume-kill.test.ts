import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { loadTreeNodes } from "../../src/search/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { leafPaths } from "./helpers.ts";

const BIN = join(import.meta.dirname, "..", "..", "bin", "rehearsal.js");
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

/** Runs the CLI; kills it with SIGKILL after `killAfterMs` when given. Resolves with how it ended. */
function runCli(
  args: string[],
  killAfterMs?: number,
): Promise<{ killed: boolean; code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "1" },
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    let killed = false;
    const timer =
      killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            killed = child.kill("SIGKILL");
          }, killAfterMs);
    child.on("exit", (code) => {
      if (timer) clearTimeout(timer);
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
    const full = await runCli([...ARGS, "--store", reference, "--json"]);
    expect(full.code).toBe(0);
    const refRun = JSON.parse(full.stdout).runId as string;
    const expected = leavesByTask(reference, refRun);
    expect(Object.keys(expected)).toHaveLength(10);
    expect(Object.values(expected).flat().length).toBeGreaterThan(100);

    const killedStore = join(dir, "killed");
    const random = createRandom("resume-kill-test");
    let kills = 0;
    let runId: string | undefined;
    for (
      let attempt = 0;
      attempt < 60 && !(kills >= 5 && runId && runStatus(killedStore, runId) === "complete");
      attempt++
    ) {
      const args = runId
        ? ["search", "--resume", runId, "--store", killedStore]
        : [...ARGS, "--store", killedStore];
      // After five kills, let it finish.
      const r = await runCli(args, kills >= 5 ? undefined : 900 + random.int(2200));
      runId ??= searchRunId(killedStore);
      const status = runId ? runStatus(killedStore, runId) : undefined;
      if (r.killed && runId && status !== "complete" && storedNodes(killedStore, runId) > 0) kills += 1;
      else if (!r.killed && r.code !== 0) throw new Error(`search exited with code ${r.code}`);
      else if (status === "complete" && kills < 5) {
        // Finished before enough kills: start over in a fresh store so that the kills land mid-run.
        rmSync(killedStore, { recursive: true, force: true });
        runId = undefined;
        kills = 0;
      }
    }
    expect(kills).toBeGreaterThanOrEqual(5);
    expect(runId).toBeDefined();
    expect(leavesByTask(killedStore, runId as string)).toEqual(expected);
  }, 300_000);
});
