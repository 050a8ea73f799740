import { describe, expect, it } from "vitest";
import { createRandom, createRuntime, type Environment } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { loadTreeNodes, runSearch, SearchConfigSchema, treeIdOf } from "../../src/search/index.ts";
import { createMemoryStore, type RunStore } from "../../src/store/index.ts";
import { treeView } from "./helpers.ts";

/**
 * The next round's first queued nodes reach their states while the round before still moves, on
 * environments that are idle or freed (search/tree-activations.ts). What the search stores does not
 * depend on when environments free up: with environment operations delayed at random (most by a few
 * milliseconds, some by much more, so that the next round's nodes often finish reaching their states
 * before the round's slowest move), every round writes the same nodes (every field but the steps'
 * wall-clock times, as written then) as with instant operations, for one and for four live
 * environments. (The number of live environments itself shapes the tree: it caps the alive nodes
 * that share the probe budget.)
 */

const TASKS = ["4x4", "8x8", "random-5-3"];

/** FrozenLake whose operations each wait a random 0–`maxDelayMs` ms, one in ten 5 times as long (0: no wait). */
function slowed(maxDelayMs: number, key: number): Environment {
  const env = createFrozenLakeEnvironment({ slippery: true });
  const random = createRandom("pipeline-test", key);
  const wait = async <T>(f: () => Promise<T>): Promise<T> => {
    if (maxDelayMs > 0) {
      const ms = random.next() * maxDelayMs * (random.next() < 0.1 ? 5 : 1);
      await new Promise((r) => setTimeout(r, ms));
    }
    return f();
  };
  return {
    family: env.family,
    suite: env.suite,
    capabilities: env.capabilities,
    reset: (o) => wait(() => env.reset(o)),
    step: (a) => wait(() => env.step(a)),
    evaluate: () => wait(() => env.evaluate()),
    fingerprint: () => wait(() => env.fingerprint()),
    snapshot: () => wait(() => env.snapshot!()),
    restore: (s) => wait(() => env.restore!(s)),
    close: () => env.close(),
  };
}

/** Every round's node writes by tree (trees may overlap), each node as written then, but the wall-clock time of its steps. */
function recordWrites(store: RunStore): Record<string, string[]> {
  const writes: Record<string, string[]> = {};
  const putNodes = store.putNodes.bind(store);
  store.putNodes = (records) => {
    const treeId = records[0]?.treeId ?? "";
    writes[treeId] ??= [];
    writes[treeId].push(
      JSON.stringify(
        records.map((r) => ({
          ...r,
          data: { ...r.data, steps: (r.data.steps as object[]).map((s) => ({ ...s, timeMs: 0 })) },
        })),
      ),
    );
    putNodes(records);
  };
  return writes;
}

async function search(options: {
  live: number;
  maxDelayMs: number;
  store?: RunStore;
  abortAfterRounds?: number;
  /** Search config beside the defaults of these tests. */
  config?: Record<string, unknown>;
}) {
  const store = options.store ?? createMemoryStore();
  const writes = recordWrites(store);
  if (!store.getRun("r"))
    store.createRun({ id: "r", kind: "search", seed: "s", config: {}, codeVersion: "test", createdAtMs: 0 });
  const envs = Array.from({ length: options.live }, (_, i) => slowed(options.maxDelayMs, i));
  const tasks = TASKS.map((id) => (envs[0] as Environment).suite.get(id));
  for (const t of tasks) store.putTask("r", t);
  const controller = new AbortController();
  let rounds = 0;
  const result = await runSearch(
    {
      envs,
      policy: createRandomPolicy(),
      // Stored times stay fixed (the writes compared); durations are measured (reach time).
      runtime: createRuntime({ seed: "s", clock: { nowMs: () => 0, monotonicMs: () => performance.now() } }),
      store,
      signal: controller.signal,
      onProgress: () => {
        rounds += 1;
        if (rounds === options.abortAfterRounds) controller.abort();
      },
    },
    {
      runId: "r",
      seed: "s",
      tasks,
      config: SearchConfigSchema.parse({ maxLiveEnvs: options.live, maxNodesPerTree: 30, ...options.config }),
    },
  );
  return { store, result, writes };
}

const aheadOf = (result: Awaited<ReturnType<typeof search>>["result"]) =>
  result.tasks.reduce((a, t) => a + t.counters.reachedAhead, 0);

describe("search: the next round's nodes start while the round before moves", () => {
  for (const live of [1, 4]) {
    it(`writes the same nodes every round with slow, unevenly timed environments (${live} live)`, async () => {
      const instant = await search({ live, maxDelayMs: 0 });
      const slow = await search({ live, maxDelayMs: 2 });
      expect(slow.result.interrupted).toBe(false);
      expect(Object.keys(slow.writes)).toHaveLength(TASKS.length);
      for (const w of Object.values(slow.writes)) expect(w.length).toBeGreaterThan(5);
      expect(slow.writes).toEqual(instant.writes);
      // With four environments some nodes did start during the round before.
      if (live === 4) expect(aheadOf(slow.result)).toBeGreaterThan(0);
      // The search's reach time: at most the trees' own (overlapping) reach times summed, and at
      // most the reaches' summed durations; the slowed environments took time to reach.
      const { wallMs, envMs } = slow.result.reach;
      const treeSum = slow.result.tasks.reduce((a, t) => a + t.counters.replayMs, 0);
      expect(wallMs).toBeGreaterThan(0);
      expect(wallMs).toBeLessThanOrEqual(treeSum + 1e-6);
      expect(wallMs).toBeLessThanOrEqual(envMs + 1e-6);
      // The roots' resets are kept apart: one per tree, each slowed.
      expect(slow.result.starts.wallMs).toBeGreaterThan(0);
      expect(slow.result.starts.wallMs).toBeLessThanOrEqual(slow.result.starts.envMs + 1e-6);
    });
  }

  it("an interruption with nodes started ahead returns what it stored; the resumed run stores the same trees", async () => {
    const full = await search({ live: 4, maxDelayMs: 2 });
    const store = createMemoryStore();
    const part = await search({ live: 4, maxDelayMs: 2, store, abortAfterRounds: 5 });
    expect(part.result.interrupted).toBe(true);
    expect(aheadOf(part.result)).toBeGreaterThan(0);
    // The interrupted trees in memory are the stored ones: nodes started ahead of their round are put back.
    for (const [i, t] of part.result.tasks.entries())
      expect(treeView(t.nodes.values())).toEqual(treeView(loadTreeNodes(store, treeIdOf("r", TASKS[i]!))));
    const resumed = await search({ live: 4, maxDelayMs: 2, store });
    expect(resumed.result.interrupted).toBe(false);
    for (let i = 0; i < TASKS.length; i++)
      expect(treeView(resumed.result.tasks[i]!.nodes.values())).toEqual(
        treeView(full.result.tasks[i]!.nodes.values()),
      );
  });
});

describe("search: a root's start is kept apart from children's reach", () => {
  it("a root's start is not a child's reach: a tree that never branches reaches no child", async () => {
    const { result } = await search({ live: 2, maxDelayMs: 2, config: { rootBranchBudget: 0 } });
    expect(result.tasks).toHaveLength(TASKS.length);
    for (const t of result.tasks) {
      expect(t.nodes.size).toBe(1);
      expect(t.counters.replayMs).toBe(0);
    }
    expect(result.reach).toEqual({ wallMs: 0, envMs: 0 });
    expect(result.starts.wallMs).toBeGreaterThan(0);
    expect(result.starts.envMs).toBeGreaterThanOrEqual(result.starts.wallMs - 1e-6);
  });
});
