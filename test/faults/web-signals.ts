import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { storedCounters } from "../../src/search/index.ts";
import { openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { type SpawnedCli, spawnCli, waitFor, withStore } from "../cli/run-cli.ts";

/**
 * What the web signal suites (`web-search-signals.test.ts`, `web-run-signals.test.ts`) share: a store of
 * their own per file (the two files run in parallel), the runs in it, and a child started on it.
 */
export function signalStore(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const store = join(dir, "store");
  const use = <T>(fn: (s: RunStore) => T): T => withStore(store, fn);
  // Never open (and so create) the store before a child has: that would race its migration.
  const runIds = (): string[] =>
    existsSync(join(store, "rehearsal.db")) ? use((s) => s.listRuns().map((r) => r.id)) : [];
  const statusOf = (runId: string) => use((s) => s.getRun(runId)?.status);
  return { dir, store, use, runIds, statusOf };
}

export type SignalStore = ReturnType<typeof signalStore>;

export const SIGNALS = [
  ["SIGTERM", 143],
  ["SIGINT", 130],
] as const;

export interface StartedChild {
  cli: SpawnedCli;
  /** The child's run (undefined only when it exited before creating one). */
  runId: string | undefined;
  /** Whether the child has exited. */
  exited(): boolean;
}

/**
 * Starts the real bin on `on`'s store and waits until its run is in the store (the command's signal
 * policy is installed by then) or until it exits.
 */
export async function startChild(on: SignalStore, args: string[]): Promise<StartedChild> {
  const before = new Set(on.runIds());
  const cli = await spawnCli(args);
  let exited = false;
  void cli.done.then(() => {
    exited = true;
  });
  let runId: string | undefined;
  await waitFor(() => {
    try {
      runId = on.runIds().find((id) => !before.has(id));
    } catch {
      // the child is still creating the store
    }
    return runId !== undefined || exited;
  });
  return { cli, runId, exited: () => exited };
}

/**
 * The search rounds a run has stored, over all its trees: each round of a tree stores its nodes and
 * its counters (`rounds` one more), the last, empty one included. The same seeded search stores the
 * same sequence 0, 1, …, final on every machine at any load: a point of progress, not of time.
 */
export function roundsStored(s: RunStore, runId: string): number {
  return s.listTrees(runId).reduce((sum, t) => sum + storedCounters(t).rounds, 0);
}

/**
 * Polls (every 20 ms, one store connection) until the child's run has stored at least `rounds`
 * rounds, or the child has exited; returns the rounds it saw last. The deadline only turns a hang into
 * a named failure.
 */
export async function waitForRounds(
  on: SignalStore,
  child: StartedChild,
  rounds: number,
  deadlineMs = 240_000,
): Promise<number> {
  const runId = child.runId;
  if (runId === undefined) return -1;
  const end = Date.now() + deadlineMs;
  const s = openSqliteStore({ dir: on.store });
  try {
    let seen = roundsStored(s, runId);
    while (seen < rounds && !child.exited()) {
      if (Date.now() > end)
        throw new Error(`run ${runId} stored ${seen} of ${rounds} rounds in ${deadlineMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
      seen = roundsStored(s, runId);
    }
    return seen;
  } finally {
    s.close();
  }
}
