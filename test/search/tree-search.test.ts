import { describe, expect, it } from "vitest";
import {
  loadTreeNodes,
  pathSteps,
  type SearchNode,
  treeIdOf,
  uniqueSuccessSteps,
} from "../../src/search/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { leafPaths, searchFrozenLake, treeView } from "./helpers.ts";

/**
 * Searches that several tests inspect without changing, each run once on first use (a test run alone
 * still runs what it needs). A test that compares two runs still compares two separate searches.
 */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
const plain = once(() => searchFrozenLake({}));
const slipperySnap = once(() => searchFrozenLake({ envOptions: { slippery: true } }));

describe("ENVS tree search on FrozenLake", () => {
  it("verifies every leaf and respects budgets, the per-step cap and pruning", async () => {
    const { result, config } = await plain();
    for (const t of result.tasks) {
      const nodes = [...t.nodes.values()];
      const byId = new Map(nodes.map((n) => [n.id, n] as const));
      expect(nodes.every((n) => n.status === "leaf" || n.status === "dropped")).toBe(true);
      for (const n of nodes.filter((x) => x.status === "leaf")) {
        expect(n.outcome).toBeDefined();
        expect(n.endReason).toBeDefined();
        expect(n.outcome?.success).toBe(n.outcome?.reward === 1);
        // The step path is contiguous from 0 and matches the prefix.
        const path = pathSteps(n, byId);
        expect(path.map((s) => s.index)).toEqual(path.map((_, i) => i));
        expect(path.map((s) => s.action)).toEqual(n.prefix);
        expect(n.prefix.length).toBeLessThanOrEqual(config.horizon);
      }
      for (const parent of nodes) {
        const children = nodes.filter((c) => c.parentId === parent.id);
        const events = new Set(children.map((c) => c.fromStep));
        const budget = parent.parentId === null ? config.rootBranchBudget : config.childBranchBudget;
        expect(events.size).toBeLessThanOrEqual(budget);
        for (const step of events)
          expect(children.filter((c) => c.fromStep === step).length).toBeLessThanOrEqual(config.perStepCap);
        // A node never starts branching at or after the late step.
        const first = Math.min(...events);
        if (events.size > 0) expect(first).toBeLessThan(config.lateStepDeferral);
        const branchLog = parent.gateLog.filter((g) => g.reason === "branch");
        expect(branchLog.length).toBe(events.size);
      }
      expect(t.stats.leaves).toBe(nodes.filter((n) => n.status === "leaf").length);
    }
  });

  it("finds verified successes where the policy alone rarely succeeds", async () => {
    const { result } = await searchFrozenLake({
      tasks: ["4x4", "random-5-3", "random-5-5", "random-5-7"],
      config: { rootBranchBudget: 12, childBranchBudget: 4, maxNodesPerTree: 400 },
    });
    const successes = result.tasks.reduce((a, t) => a + t.stats.successes, 0);
    expect(successes).toBeGreaterThan(0);
    for (const t of result.tasks) expect(t.stats.uniqueSteps).toBe(uniqueSuccessSteps(t.nodes).size);
  });

  it("is deterministic: the same seed gives the same tree", async () => {
    const a = await plain();
    const b = await searchFrozenLake({});
    for (let i = 0; i < a.result.tasks.length; i++) {
      expect(treeView(b.result.tasks[i]!.nodes.values())).toEqual(
        treeView(a.result.tasks[i]!.nodes.values()),
      );
    }
  });

  it("children reached by replay give the same tree as children reached by snapshot", async () => {
    const snap = await slipperySnap();
    const replay = await searchFrozenLake({ envOptions: { slippery: true }, wrap: { hideSnapshot: true } });
    const restores = snap.result.tasks.reduce((a, t) => a + t.counters.restores, 0);
    const replayed = replay.result.tasks.reduce((a, t) => a + t.counters.replaySteps, 0);
    expect(restores).toBeGreaterThan(0);
    expect(replayed).toBeGreaterThan(0);
    expect(snap.result.tasks.reduce((a, t) => a + t.counters.replaySteps, 0)).toBe(0);
    for (let i = 0; i < snap.result.tasks.length; i++) {
      expect(treeView(replay.result.tasks[i]!.nodes.values())).toEqual(
        treeView(snap.result.tasks[i]!.nodes.values()),
      );
    }
  });

  it("falls back to replay when the environment cannot snapshot a task", async () => {
    const snap = await slipperySnap();
    const unsupported = await searchFrozenLake({
      envOptions: { slippery: true },
      wrap: { snapshotUnsupported: true },
    });
    expect(unsupported.result.tasks.reduce((a, t) => a + t.counters.replaySteps, 0)).toBeGreaterThan(0);
    expect(unsupported.result.tasks.reduce((a, t) => a + t.counters.restores, 0)).toBe(0);
    for (let i = 0; i < snap.result.tasks.length; i++) {
      expect(treeView(unsupported.result.tasks[i]!.nodes.values())).toEqual(
        treeView(snap.result.tasks[i]!.nodes.values()),
      );
    }
  });

  it("a replay whose state does not match is reported and the child dropped, never kept", async () => {
    const { result } = await searchFrozenLake({ wrap: { hideSnapshot: true, noisyFingerprint: true } });
    for (const t of result.tasks) {
      const children = [...t.nodes.values()].filter((n) => n.parentId !== null);
      expect(children.length).toBeGreaterThan(0);
      expect(
        children.every((n) => n.status === "dropped" && n.dropReason?.startsWith("replay_mismatch")),
      ).toBe(true);
      expect(t.counters.mismatches).toBe(children.length);
      expect(t.stats.dropped).toBe(children.length);
    }
  });

  it("an environment failure drops the node as infra-failed, never a scored leaf", async () => {
    const { result } = await searchFrozenLake({ tasks: ["4x4"], wrap: { failOnStep: (n) => n === 5 } });
    const t = result.tasks[0]!;
    const failed = [...t.nodes.values()].filter((n) => n.dropReason?.startsWith("infra_failed"));
    expect(failed).toHaveLength(1);
    expect(failed[0]?.outcome).toBeUndefined();
    expect(t.counters.infraFailures).toBe(1);
  });

  it("resumes an interrupted search from the store with the same verified leaves", async () => {
    const full = await searchFrozenLake({
      envOptions: { slippery: true },
      tasks: ["4x4", "8x8", "random-5-3"],
    });
    const store = createMemoryStore();
    for (const stopAfter of [3, 7, 12, 30]) {
      const controller = new AbortController();
      let rounds = 0;
      const part = await searchFrozenLake({
        store,
        runId: "search_resumed",
        envOptions: { slippery: true },
        tasks: ["4x4", "8x8", "random-5-3"],
        signal: controller.signal,
        onRound: () => {
          rounds += 1;
          if (rounds === stopAfter) controller.abort();
        },
      });
      if (!part.result.interrupted) break;
    }
    const final = await searchFrozenLake({
      store,
      runId: "search_resumed",
      envOptions: { slippery: true },
      tasks: ["4x4", "8x8", "random-5-3"],
    });
    expect(final.result.interrupted).toBe(false);
    for (const [i, taskId] of ["4x4", "8x8", "random-5-3"].entries()) {
      const stored: SearchNode[] = loadTreeNodes(store, treeIdOf("search_resumed", taskId));
      expect(leafPaths(stored)).toEqual(leafPaths(full.result.tasks[i]!.nodes.values()));
      expect(treeView(stored)).toEqual(treeView(full.result.tasks[i]!.nodes.values()));
    }
  });
});
