import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loadTreeNodes } from "../../src/search/index.ts";
import { type CliResult, json, runMain, waitFor } from "../cli/run-cli.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { roundsStored, SIGNALS, signalStore, startChild, waitForRounds } from "./web-signals.ts";

/**
 * The done-when of the faults issue: SIGTERM and SIGINT at seeded random points of a web search each
 * leave an `interrupted` run whose `--resume` ends with exactly the leaves of an uninterrupted run,
 * and no run is ever `complete` with fewer leaves. Real Chromium, real SQLite, the real bin. The points
 * are points of progress (rounds stored), not of time: each lands mid-way at any load.
 */
const on = signalStore("rehearsal-web-search-signals-");
const { store, use, statusOf } = on;
const config = join(on.dir, "search.yaml");
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

/** Leaves per task, each as its action path and its reward (not only a count). */
function leavesOf(runId: string): Record<string, string[]> {
  return use((s) =>
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
  return use((s) =>
    s
      .listTrees(runId)
      .flatMap((t) => loadTreeNodes(s, t.id))
      .filter((n) => n.status === "dropped" && /infra/.test(JSON.stringify(n)))
      .map((n) => n.id),
  );
}

/** Seeded integers in [0, below) (mulberry32): the same points on every machine and every run. */
function seededPoints(seed: number, n: number, below: number): number[] {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: n }, () => Math.floor(next() * below));
}

/** `search --resume` in this process: only the interrupted searches need a process of their own. */
function resume(runId: string): Promise<CliResult> {
  return runMain(["--json", "search", "--resume", runId, "--store", store]);
}

let reference: Record<string, string[]> = {};
/** The rounds the uninterrupted search stores in all (its last tree's last, empty round included). */
let finalRounds = 0;

shareBrowserAcrossFile();

beforeAll(async () => {
  // The uninterrupted reference runs in this process: only the interrupted searches need their own.
  const r = await runMain(SEARCH);
  expect(r.code, r.stderr).toBe(0);
  const id = json<{ runId: string; status: string }>(r).runId;
  expect(use((s) => s.listRuns().map((run) => run.id))).toEqual([id]);
  expect(statusOf(id)).toBe("complete");
  reference = leavesOf(id);
  expect(Object.keys(reference)).toHaveLength(3);
  expect(Object.values(reference).flat().length).toBeGreaterThan(3);
  expect(infraDropped(id)).toEqual([]);
  finalRounds = use((s) => roundsStored(s, id));
  expect(finalRounds).toBeGreaterThan(3);
}, 180_000);

describe("web search under SIGTERM/SIGINT at random points: interrupted, resumable, leaves equal", () => {
  it(`${POINTS} signals (SIGTERM and SIGINT alternately) at seeded random points`, async () => {
    // A search checks for a signal before each round and before each tree. A signal sent once k
    // rounds are stored, k ≤ final − 2, lands while at least the last tree's last round with work is
    // still to come (that round ends in the store as final − 1; final is the empty round after the
    // last check): the search stops at its next check, so EVERY point must interrupt. Only a poll
    // late by a whole round of Chromium work could miss one; the label then shows the rounds seen.
    const points = seededPoints(18, POINTS, finalRounds - 1);
    const outcomes: string[] = [];
    // Signals the child for point i once it has stored that many rounds; the child for the next point
    // runs (a process and a browser of its own, signalled at its own point of progress) while this
    // process resumes the run the last one left.
    const interrupt = async (i: number) => {
      const child = await startChild(on, SEARCH);
      const seen = await waitForRounds(on, child, points[i] as number);
      child.cli.child.kill((SIGNALS[i % 2] as (typeof SIGNALS)[number])[0]);
      return { child, seen, r: await child.cli.done };
    };
    let next = interrupt(0);
    onTestFinished(async () => {
      // A failure mid-way leaves no child behind.
      await next.catch(() => undefined);
    });
    for (const [i, point] of points.entries()) {
      const [signal, code] = SIGNALS[i % 2] as (typeof SIGNALS)[number];
      const { child, seen, r } = await next;
      if (i + 1 < points.length) next = interrupt(i + 1);
      const id = child.runId as string;
      expect(id, r.stderr).toBeTruthy();
      const status = statusOf(id);
      const label = `${signal} at ${point} of ${finalRounds} rounds (saw ${seen}; run ${id}, exit ${r.code})`;
      outcomes.push(`${label}: ${status}`);
      expect(infraDropped(id), label).toEqual([]);
      if (status === "complete") {
        // Never complete with fewer leaves (the count below then fails: the point did not interrupt).
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
    expect(outcomes.filter((o) => o.endsWith("interrupted")).length, outcomes.join("\n")).toBe(POINTS);
  }, 900_000);

  it("a second signal exits at once and still leaves a resumable run with the same leaves", async () => {
    const child = await startChild(on, SEARCH);
    expect(await waitForRounds(on, child, 1)).toBeLessThan(finalRounds);
    child.cli.child.kill("SIGTERM");
    await waitFor(() => child.cli.stderr().includes("SIGTERM again exits now"));
    child.cli.child.kill("SIGTERM");
    const r = await child.cli.done;
    const id = child.runId as string;
    expect(r.code, r.stderr).toBe(143);
    expect(statusOf(id)).toBe("interrupted");
    const resumed = await resume(id);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(leavesOf(id)).toEqual(reference);
    expect(infraDropped(id)).toEqual([]);
  }, 180_000);
});
