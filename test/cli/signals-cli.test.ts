import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startReplayServer } from "../../src/llm/index.ts";
import { loadTreeNodes } from "../../src/search/index.ts";
import type { RunStore } from "../../src/store/index.ts";
import { leafPaths } from "../search/helpers.ts";
import { llmEnv } from "./llm-helpers.ts";
import { json, newestRunCount, runMain, spawnCli, waitFor, withStore } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-signals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const progress = newestRunCount;

const nodes = (s: RunStore, runId: string) =>
  s.listTrees(runId).reduce((a, t) => a + s.listNodes(t.id).length, 0);
const episodes = (s: RunStore, runId: string) => s.listTrajectories(runId).length;

const leavesByTask = (storeDir: string, runId: string) =>
  withStore(storeDir, (s) =>
    Object.fromEntries(s.listTrees(runId).map((t) => [t.taskId, leafPaths(loadTreeNodes(s, t.id))])),
  );

const SEARCH = [
  "--json",
  "search",
  "--env",
  "frozenlake",
  "--tasks",
  ["4x4", "8x8", ...Array.from({ length: 8 }, (_, i) => `random-5-${i}`)].join(","),
  "--policy",
  "random",
  "--seed",
  "42",
  "--live-envs",
  "3",
];
// Long enough (4000 episodes, about half a second) that the signal lands while it runs: at 200 the
// whole run could end between the first stored episode and the signal.
const RUN_EPISODES = 4000;
const RUN = "--json run --env frozenlake --tasks 4x4,8x8 --policy random".split(" ");
RUN.push("-n", String(RUN_EPISODES / 2)); // episodes per task

/** Starts `args`, sends `signal` once `count` shows progress, and returns the result and the run id. */
async function interrupt(
  args: string[],
  storeDir: string,
  signal: "SIGINT" | "SIGTERM",
  count: (s: RunStore, runId: string) => number,
) {
  const cli = await spawnCli([...args, "--store", storeDir]);
  let exited = false;
  let early = "";
  void cli.done.then((r) => {
    exited = true;
    early = `exit ${r.code}: ${r.stderr}`;
  });
  await waitFor(() => exited || progress(storeDir, count) > 0);
  expect(exited, `the command ended before it could be interrupted (${early})`).toBe(false);
  cli.child.kill(signal);
  const r = await cli.done;
  const runId = withStore(storeDir, (s) => s.listRuns()[0]?.id as string);
  return { r, runId, status: withStore(storeDir, (s) => s.getRun(runId)?.status) };
}

describe("one signal policy: SIGINT/SIGTERM stop, save, mark interrupted, exit 130/143, resume", () => {
  let searchReference: Record<string, string[]> | undefined;
  const reference = async () => {
    if (searchReference) return searchReference;
    const store = join(dir, "search-reference");
    const full = await runMain([...SEARCH, "--store", store]);
    expect(full.code, full.stderr).toBe(0);
    searchReference = leavesByTask(store, json<{ runId: string }>(full).runId);
    return searchReference;
  };
  /** The summary of the run uninterrupted: computed once, for both signals. */
  let runSummary: unknown;
  const runReference = async () => {
    if (runSummary !== undefined) return runSummary;
    const full = await runMain([...RUN, "--store", join(dir, "run-reference")]);
    expect(full.code, full.stderr).toBe(0);
    runSummary = json<{ summary: unknown }>(full).summary;
    return runSummary;
  };

  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "search: %s → interrupted, exit %i, resume hint; --resume gives the uninterrupted leaves",
    async (signal, code) => {
      const store = join(dir, `search-${signal}`);
      const { r, runId, status } = await interrupt(SEARCH, store, signal, nodes);
      expect(r.code, r.stderr).toBe(code);
      expect(status).toBe("interrupted");
      expect(json<{ status: string }>(r).status).toBe("interrupted");
      expect(r.stderr).toContain(`resume with: rehearsal search --resume ${runId} --store ${store}`);
      const resumed = await runMain(["--json", "search", "--resume", runId, "--store", store]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(withStore(store, (s) => s.getRun(runId)?.status)).toBe("complete");
      expect(leavesByTask(store, runId)).toEqual(await reference());
    },
    300_000,
  );

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "run: %s → interrupted, exit %i, the episode in flight aborted (not infra-failed); --resume completes it",
    async (signal, code) => {
      const store = join(dir, `run-${signal}`);
      const { r, runId, status } = await interrupt(RUN, store, signal, episodes);
      expect(r.code, r.stderr).toBe(code);
      expect(status).toBe("interrupted");
      expect(r.stderr).toContain(`resume with: rehearsal run --resume ${runId} --store ${store}`);
      const statuses = withStore(store, (s) => s.listTrajectories(runId).map((t) => t.status));
      expect(statuses).not.toContain("infra_failed");
      expect(statuses).not.toContain("running");
      expect(statuses.length).toBeLessThan(RUN_EPISODES);
      const resumed = await runMain(["--json", "run", "--resume", runId, "--store", store]);
      expect(resumed.code, resumed.stderr).toBe(0);
      const out = json<{ status: string; summary: { episodes: number; perTask: unknown[] } }>(resumed);
      expect(out.status).toBe("complete");
      expect(out.summary.episodes).toBe(RUN_EPISODES);
      // The same run uninterrupted (same seed) has the same summary.
      expect(out.summary).toEqual(await runReference());
    },
    300_000,
  );

  it("a second signal exits at once with the first signal's code; the run is left interrupted (resumable)", async () => {
    const env = (url: string) => ({ ...llmEnv(url), REHEARSAL_LLM_TIMEOUT_MS: "600000" });
    const args = ["--json", "run", "--env", "frozenlake", "--tasks", "4x4", "--policy", "llm", "-n", "1"];
    // Learn the request key, then answer it only after ten minutes: the step stays in flight.
    const probe = await startReplayServer({ fixtures: { version: 1, entries: [] } });
    await runMain([...args, "--store", join(dir, "probe")], { env: env(probe.baseUrl) });
    await probe.close();
    const key = probe.requests[0]?.key;
    expect(key).toBeTruthy();
    const server = await startReplayServer({
      fixtures: { version: 1, entries: [{ key, responses: [{ texts: ["Action: {}"], delayMs: 600_000 }] }] },
    });
    try {
      const store = join(dir, "second-signal");
      const cli = await spawnCli([...args, "--store", store], env(server.baseUrl));
      await waitFor(() => server.requests.length > 0);
      cli.child.kill("SIGTERM");
      await waitFor(() => cli.stderr().includes("SIGTERM again exits now"));
      await new Promise((r) => setTimeout(r, 500));
      expect(cli.child.exitCode).toBeNull(); // the first signal waits for the step in flight
      cli.child.kill("SIGTERM");
      const r = await cli.done;
      expect(r.code).toBe(143);
      expect(r.stderr).toContain("SIGTERM again exits now");
      expect(withStore(store, (s) => s.listRuns()[0]?.status)).toBe("interrupted");
    } finally {
      await server.close();
    }
  }, 120_000);
});
