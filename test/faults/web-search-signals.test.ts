import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTreeNodes } from "../../src/search/index.ts";
import { openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { type CliResult, json, runMain, spawnCli, waitFor } from "../cli/run-cli.ts";

/**
 * The done-when of the faults issue: SIGTERM and SIGINT at seeded random points of a web search each
 * leave an `interrupted` run whose `--resume` ends with exactly the leaves of an uninterrupted run,
 * and no run is ever `complete` with fewer leaves. Real Chromium, real SQLite, the real bin.
 */
const dir = mkdtempSync(join(tmpdir(), "rehearsal-web-signals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const store = join(dir, "store");
const config = join(dir, "search.yaml");
const SIGNALS = [
  ["SIGTERM", 143],
  ["SIGINT", 130],
] as const;
const POINTS = 10;

/** Three small built-in tasks (9 rounds, 8 leaves with this seed): kills land in and between trees. */
writeFileSync(
  config,
  [
    "env: web",
    "tasks: [click-dialog, click-checkboxes, click-link]",
    "policy: heuristic",
    "seed: 1",
    "search:",
    "  maxLiveEnvs: 2",
    "  kMax: 16",
    "  totalProbeBudget: 16",
    "",
  ].join("\n"),
);
const SEARCH = ["--json", "search", "--config", config, "--store", store];

function withStore<T>(fn: (s: RunStore) => T): T {
  const s = openSqliteStore({ dir: store });
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

/** Leaves per task, each as its action path and its reward (not only a count). */
function leavesOf(runId: string): Record<string, string[]> {
  return withStore((s) =>
    Object.fromEntries(
      s.listTrees(runId).map((t) => [
        t.taskId,
        loadTreeNodes(s, t.id)
          .filter((n) => n.status === "leaf")
          .map((n) => `${JSON.stringify(n.prefix)} → ${n.outcome?.reward}/${n.outcome?.success}`)
          .sort(),
      ]),
    ),
  );
}

/** Nodes the search dropped as environment failures (an interruption must never cause one). */
function infraDropped(runId: string): string[] {
  return withStore((s) =>
    s
      .listTrees(runId)
      .flatMap((t) => loadTreeNodes(s, t.id))
      .filter((n) => n.status === "dropped" && /infra/.test(JSON.stringify(n)))
      .map((n) => n.id),
  );
}

const runIds = (): string[] =>
  existsSync(join(store, "rehearsal.db")) ? withStore((s) => s.listRuns().map((r) => r.id)) : [];
const statusOf = (runId: string) => withStore((s) => s.getRun(runId)?.status);

/** Seeded delays (mulberry32): the same random points on every machine and every run of the test. */
function delays(seed: number, n: number, maxMs: number): number[] {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: n }, () => Math.round(next() * maxMs));
}

/** Starts a search and waits until its run is in the store (the signal policy is installed by then). */
async function startSearch(args: string[]) {
  const before = new Set(runIds());
  const cli = await spawnCli(args);
  let exited = false;
  void cli.done.then(() => {
    exited = true;
  });
  let runId: string | undefined;
  await waitFor(() => {
    if (exited) return true;
    try {
      runId = runIds().find((id) => !before.has(id));
    } catch {
      // the child is still creating the store
    }
    return runId !== undefined;
  });
  const started = Date.now();
  return { cli, started, runId: () => runId ?? runIds().find((id) => !before.has(id)) };
}

/** `search --resume` in this process: only the interrupted searches need a process of their own. */
function resume(runId: string): Promise<CliResult> {
  return runMain(["--json", "search", "--resume", runId, "--store", store]);
}

let reference: Record<string, string[]> = {};
/** How long the reference search ran once its run existed: the span the random points cover. */
let spanMs = 0;

beforeAll(async () => {
  const { cli, started, runId } = await startSearch(SEARCH);
  const r = await cli.done;
  spanMs = Date.now() - started;
  expect(r.code, r.stderr).toBe(0);
  const id = json<{ runId: string; status: string }>(r).runId;
  expect(id).toBe(runId());
  expect(statusOf(id)).toBe("complete");
  reference = leavesOf(id);
  expect(Object.keys(reference)).toHaveLength(3);
  expect(Object.values(reference).flat().length).toBeGreaterThan(3);
  expect(infraDropped(id)).toEqual([]);
}, 180_000);

describe("web search under SIGTERM/SIGINT at random points: interrupted, resumable, leaves equal", () => {
  it(`${POINTS} signals (SIGTERM and SIGINT alternately) at seeded random points`, async () => {
    const points = delays(18, POINTS, Math.max(1000, spanMs));
    const outcomes: string[] = [];
    for (const [i, delay] of points.entries()) {
      const [signal, code] = SIGNALS[i % 2] as (typeof SIGNALS)[number];
      const { cli, runId } = await startSearch(SEARCH);
      await new Promise((r) => setTimeout(r, delay));
      cli.child.kill(signal);
      const r = await cli.done;
      const id = runId() as string;
      expect(id, r.stderr).toBeTruthy();
      const status = statusOf(id);
      const label = `${signal} after ${delay} ms (run ${id}, exit ${r.code})`;
      outcomes.push(`${label}: ${status}`);
      expect(infraDropped(id), label).toEqual([]);
      if (status === "complete") {
        // It finished before the signal: then it must hold every leaf. A signal that lands after the
        // command has let go of its handlers (the process is only draining) ends the process by the
        // signal itself, which a shell reports as the same 128 + n status.
        const exitStatus = r.code ?? (r.signal === signal ? code : -1);
        expect([0, code], label).toContain(exitStatus);
        expect(leavesOf(id), label).toEqual(reference);
        continue;
      }
      expect(r.code, `${label}\n${r.stderr}`).toBe(code);
      expect(status, label).toBe("interrupted");
      expect(json<{ status: string }>(r).status, label).toBe("interrupted");
      expect(r.stderr, label).toContain(`resume with: rehearsal search --resume ${id} --store ${store}`);
      const resumed = await resume(id);
      expect(resumed.code, `${label}\n${resumed.stderr}`).toBe(0);
      expect(statusOf(id), label).toBe("complete");
      expect(leavesOf(id), label).toEqual(reference);
      expect(infraDropped(id), label).toEqual([]);
    }
    // Most points must really interrupt (else the test would not test anything).
    expect(outcomes.filter((o) => o.endsWith("interrupted")).length, outcomes.join("\n")).toBeGreaterThan(
      POINTS / 2,
    );
  }, 900_000);

  it("a second signal exits at once and still leaves a resumable run with the same leaves", async () => {
    const { cli, runId } = await startSearch(SEARCH);
    await new Promise((r) => setTimeout(r, Math.min(2000, spanMs / 3)));
    cli.child.kill("SIGTERM");
    await waitFor(() => cli.stderr().includes("SIGTERM again exits now"));
    cli.child.kill("SIGTERM");
    const r = await cli.done;
    const id = runId() as string;
    expect(r.code, r.stderr).toBe(143);
    expect(statusOf(id)).toBe("interrupted");
    const resumed = await resume(id);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(leavesOf(id)).toEqual(reference);
    expect(infraDropped(id)).toEqual([]);
  }, 180_000);
});

describe("web run under SIGTERM/SIGINT: the episode in flight is aborted, never infra_failed", () => {
  const RUN = ["--json", "run", "--env", "web", "--tasks", "click-checkboxes,click-dialog"];
  const EPISODES = 4;
  it.each(SIGNALS)(
    "%s → exit %i, interrupted; --resume plays only the missing episodes",
    async (signal, code) => {
      const before = new Set(runIds());
      const cli = await spawnCli([...RUN, "--policy", "heuristic", "-n", String(EPISODES), "--store", store]);
      const runId = () => runIds().find((id) => !before.has(id));
      const episodes = () => {
        const id = runId();
        return id ? withStore((s) => s.listTrajectories(id).length) : 0;
      };
      let exited = false;
      void cli.done.then(() => {
        exited = true;
      });
      await waitFor(() => {
        try {
          return exited || episodes() > 0;
        } catch {
          return false; // the child is still creating the store
        }
      });
      expect(exited, "the run ended before it could be interrupted").toBe(false);
      cli.child.kill(signal);
      const r = await cli.done;
      const id = runId() as string;
      expect(r.code, r.stderr).toBe(code);
      expect(statusOf(id)).toBe("interrupted");
      const statuses = withStore((s) => s.listTrajectories(id).map((t) => t.status));
      expect(statuses).not.toContain("infra_failed");
      expect(statuses).not.toContain("running");
      expect(statuses.filter((s) => s === "aborted").length).toBeLessThanOrEqual(1);
      const resumed = await runMain(["--json", "run", "--resume", id, "--store", store]);
      expect(resumed.code, resumed.stderr).toBe(0);
      const out = json<{ status: string; summary: { episodes: number } }>(resumed);
      expect(out).toMatchObject({ status: "complete", summary: { episodes: 2 * EPISODES } });
      const after = withStore((s) => s.listTrajectories(id).map((t) => t.status));
      expect(after).not.toContain("infra_failed");
    },
    300_000,
  );
});
