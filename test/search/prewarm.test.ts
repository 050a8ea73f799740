import { describe, expect, it } from "vitest";
import { createRuntime, type Environment } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { mayBranchLater } from "../../src/search/gates.ts";
import { runSearch, SearchConfigSchema } from "../../src/search/index.ts";
import { Prewarm } from "../../src/search/prewarm.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { treeView } from "./helpers.ts";

/**
 * Trees handing over and prewarms shared by a search's trees (search/prewarm.ts, run-search.ts): once
 * the running tree can no longer use a free environment (nothing queued, and no node may branch any
 * more or the node cap is reached), the next tree starts on the environments its last nodes do not
 * hold, the others following as those nodes end, and its idle environments are prewarmed for its task.
 * Checked on FrozenLake environments given a `prewarm` that resets them (as the web environment's
 * does): trees overlap, an environment never runs two operations at once, every prewarm and hold has
 * ended when the search returns, and every tree equals the one a search of its task alone finds,
 * prewarmed or not.
 */

const TASKS = ["4x4", "random-5-3", "8x8"];
type Log = { env: number; op: string; taskId?: string }[];

/** FrozenLake environments logging their resets and prewarms, and any overlap of two operations. */
function environments(count: number, log: Log, withPrewarm: boolean) {
  const overlaps: string[] = [];
  const busy = new Set<number>();
  let inFlight = 0;
  let resets = 0;
  const envs = Array.from({ length: count }, (_, i) => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const op =
      <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (busy.has(i)) overlaps.push(`env ${i}: ${name} while busy`);
        busy.add(i);
        inFlight += 1;
        try {
          return await f(...args);
        } finally {
          busy.delete(i);
          inFlight -= 1;
        }
      };
    const wrapped: Environment & { prewarm?: (t: { taskId: string; seed: number }) => Promise<void> } = {
      family: env.family,
      suite: env.suite,
      capabilities: env.capabilities,
      reset: op("reset", async (o) => {
        log.push({ env: i, op: "reset", taskId: o.taskId });
        // The search's first reset (its first root's) takes a while, as a page load does.
        if (resets++ === 0) await new Promise((r) => setTimeout(r, 5));
        const observation = await env.reset(o);
        log.push({ env: i, op: "reset ended", taskId: o.taskId });
        return observation;
      }),
      step: op("step", (a) => env.step(a)),
      evaluate: op("evaluate", () => env.evaluate()),
      fingerprint: op("fingerprint", () => env.fingerprint()),
      snapshot: op("snapshot", () => env.snapshot!()),
      restore: op("restore", (s) => env.restore!(s)),
      close: () => env.close(),
    };
    if (withPrewarm)
      wrapped.prewarm = op("prewarm", async (t) => {
        log.push({ env: i, op: "prewarm", taskId: t.taskId });
        // Yield first, so that a prewarm is still running while the search goes on.
        await new Promise((r) => setTimeout(r, 5));
        await env.reset(t);
      });
    return wrapped;
  });
  return { envs, overlaps, inFlight: () => inFlight };
}

async function search(withPrewarm: boolean, taskIds: ReadonlyArray<string> = TASKS) {
  const log: Log = [];
  const { envs, overlaps, inFlight } = environments(3, log, withPrewarm);
  const store = createMemoryStore();
  store.createRun({ id: "r", kind: "search", seed: "s", config: {}, codeVersion: "test", createdAtMs: 0 });
  const tasks = taskIds.map((id) => (envs[0] as Environment).suite.get(id));
  for (const t of tasks) store.putTask("r", t);
  const config = SearchConfigSchema.parse({ maxLiveEnvs: 3, maxNodesPerTree: 7 });
  /** The task of each round's progress, in order. */
  const rounds: string[] = [];
  const result = await runSearch(
    {
      envs,
      policy: createRandomPolicy(),
      runtime: createRuntime({ seed: "s" }),
      store,
      onProgress: (p) => rounds.push(p.taskId),
    },
    { runId: "r", seed: "s", tasks, config },
  );
  return { result, log, overlaps, rounds, inFlightAtReturn: inFlight() };
}

describe("search prewarms shared by its trees", () => {
  it("starts the next tree on environments the tree can no longer use; each tree as searched alone", async () => {
    const warm = await search(true);
    const cold = await search(false);
    for (const run of [warm, cold]) {
      expect(run.overlaps).toEqual([]);
      expect(run.inFlightAtReturn).toBe(0);
    }
    // Some tree's round ends after the next tree's first round: the trees ran at the same time.
    const overlapped = TASKS.slice(1).some(
      (taskId, t) => warm.rounds.indexOf(taskId) < warm.rounds.lastIndexOf(TASKS[t] as string),
    );
    expect(overlapped).toBe(true);
    // Each environment is prewarmed at most once per task.
    const prewarms = warm.log.filter((e) => e.op === "prewarm").map((e) => `${e.env}:${e.taskId}`);
    expect(prewarms.length).toBeGreaterThan(0);
    expect(new Set(prewarms).size).toBe(prewarms.length);
    expect(cold.log.some((e) => e.op === "prewarm")).toBe(false);
    // The first tree's idle environments start their prewarm while its root resets, not after.
    const first = (op: string) => warm.log.findIndex((e) => e.op === op && e.taskId === TASKS[0]);
    expect(first("prewarm")).toBeGreaterThan(first("reset"));
    expect(first("prewarm")).toBeLessThan(first("reset ended"));
    for (const [t, taskId] of TASKS.entries()) {
      const alone = await search(false, [taskId]);
      const tree = treeView(alone.result.tasks[0]!.nodes.values());
      expect(treeView(warm.result.tasks[t]!.nodes.values())).toEqual(tree);
      expect(treeView(cold.result.tasks[t]!.nodes.values())).toEqual(tree);
    }
  });

  it("a node may branch later only while no gate it fails can never pass again", () => {
    const config = SearchConfigSchema.parse({ lateStepDeferral: 10, hardCutoff: 12 });
    expect(mayBranchLater({ step: 0, budget: 1, hasBranched: false }, config)).toBe(true);
    expect(mayBranchLater({ step: 9, budget: 1, hasBranched: false }, config)).toBe(true);
    expect(mayBranchLater({ step: 10, budget: 1, hasBranched: false }, config)).toBe(false);
    expect(mayBranchLater({ step: 11, budget: 1, hasBranched: true }, config)).toBe(true);
    expect(mayBranchLater({ step: 12, budget: 1, hasBranched: true }, config)).toBe(false);
    expect(mayBranchLater({ step: 3, budget: 0, hasBranched: true }, config)).toBe(false);
    const noCap = SearchConfigSchema.parse({ perStepCap: 0 });
    expect(mayBranchLater({ step: 0, budget: 5, hasBranched: false }, noCap)).toBe(false);
  });
});

describe("Prewarm.isReady: whether a node taking the environment would wait", () => {
  it("is false while a prewarm or a hold of the environment runs, true once it ended", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    let finish = () => {};
    const warmable = Object.assign(env, {
      prewarm: () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    });
    const warm = new Prewarm(createRuntime({ seed: "w" }).logger);
    const slot = { env: warmable, base: warmable };
    expect(warm.isReady(warmable)).toBe(true);
    warm.start([slot], { taskId: "4x4", seed: 1 });
    expect(warm.isReady(warmable)).toBe(false);
    await Promise.resolve();
    finish();
    await warm.ready(slot);
    expect(warm.isReady(warmable)).toBe(true);
    const release = warm.hold(warmable);
    expect(warm.isReady(warmable)).toBe(false);
    release();
    await warm.settle();
    expect(warm.isReady(warmable)).toBe(true);
  });
});
