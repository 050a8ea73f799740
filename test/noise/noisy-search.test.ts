import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type Environment } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../src/envs/web/index.ts";
import { branchNoiseHooks } from "../../src/noise/branch-hooks.ts";
import { generatorByName } from "../../src/noise/catalog.ts";
import { sampleSchedule } from "../../src/noise/schedule.ts";
import { noiseTag } from "../../src/noise/tags.ts";
import { createHeuristicWebPolicy } from "../../src/policies/heuristic-web/heuristic-web-policy.ts";
import { SearchConfigSchema, type SearchNode, searchTree, type TreeNoise } from "../../src/search/index.ts";

const noise: TreeNoise = {
  ...branchNoiseHooks,
  fraction: 0.5,
  successRate: 0.6,
  plan: ({ taskId, rollout, fromStep, successRate }) =>
    sampleSchedule({ taskId, rollout, fromStep, successRate, purpose: "search", split: "train" }).events,
};

/** The web environment without snapshots: children reach their state by reset + replay. */
function replayOnly(web: WebEnvironment): Environment {
  return new Proxy(web, {
    get(target, prop) {
      if (prop === "capabilities") return { ...target.capabilities, snapshot: false };
      if (prop === "snapshot" || prop === "restore") return undefined;
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function search(envs: Environment[], taskId: string) {
  const task = envs[0]!.suite.get(taskId);
  return searchTree(
    { envs, policy: createHeuristicWebPolicy(), runtime: createRuntime({ seed: "noise-search" }) },
    {
      treeId: `t:${taskId}`,
      task,
      seed: 11,
      randomKey: "noise-search",
      config: SearchConfigSchema.parse({ maxNodesPerTree: 10, maxLiveEnvs: 2, totalProbeBudget: 8 }),
      noise,
    },
  );
}

const summary = (nodes: Map<string, SearchNode>) =>
  [...nodes.values()]
    .map((n) => [
      n.id,
      n.status,
      n.outcome?.success ?? null,
      n.noise?.tag ?? null,
      n.noise?.events?.length ?? 0,
    ])
    .sort();

describe("search with noise: noisy branches and clean controls", () => {
  // Two environments for the searches that restore snapshots, two for the ones that replay: the two
  // searches of a task run at once (each mostly waits on the browser).
  let snapshotWebs: WebEnvironment[];
  let replayWebs: Environment[];
  const opened: WebEnvironment[] = [];
  beforeAll(async () => {
    opened.push(
      ...(await Promise.all(
        [0, 1, 2, 3].map(() => createWebEnvironment({ observation: { screenshot: false } })),
      )),
    );
    snapshotWebs = opened.slice(0, 2);
    replayWebs = opened.slice(2).map(replayOnly);
  });
  afterAll(async () => {
    await Promise.all(opened.map((w) => w.close()));
  });
  // Each search once: the same arguments give the same tree (the first test proves it across both
  // ways of reaching states), so the second test reads the tree the first one searched.
  const trees = new Map<string, ReturnType<typeof search>>();
  const searched = (via: "snapshot" | "replay", taskId: string) => {
    const key = `${via}:${taskId}`;
    let tree = trees.get(key);
    if (!tree) {
      tree = search(via === "snapshot" ? snapshotWebs : replayWebs, taskId);
      trees.set(key, tree);
    }
    return tree;
  };

  it("tags every leaf, records what fired and when it was recovered, and replays noisy prefixes exactly", {
    timeout: 240_000,
  }, async () => {
    for (const taskId of ["login-user", "click-checkboxes"]) {
      const [viaSnapshot, viaReplay] = await Promise.all([
        searched("snapshot", taskId),
        searched("replay", taskId),
      ]);
      for (const tree of [viaSnapshot, viaReplay]) {
        expect(tree.counters.mismatches, taskId).toBe(0);
        expect(tree.counters.infraFailures, taskId).toBe(0);
        const nodes = [...tree.nodes.values()];
        expect(nodes.every((n) => n.noise !== undefined)).toBe(true);
        const leaves = nodes.filter((n) => n.status === "leaf");
        expect(leaves.length).toBeGreaterThan(0);
        for (const leaf of leaves) {
          const events = leaf.noise?.events ?? [];
          expect(leaf.noise?.tag).toBe(noiseTag(events, leaf.outcome?.success ?? false));
          for (const e of events) {
            expect(generatorByName(e.generator)?.heldOut, e.generator).toBe(false);
            expect(e.step).toBeLessThanOrEqual(leaf.prefix.length);
            if (e.recoveredAt !== null) expect(e.recoveredAt).toBeGreaterThan(e.step);
            // Every applied event is also in the step info of the step that fired it.
            const fired = leaf.steps.flatMap(
              (s) => (s.info.noise as { fired?: Array<{ id: string }> })?.fired ?? [],
            );
            if (e.step > leaf.fromStep) expect(fired.map((f) => f.id)).toContain(e.id);
          }
        }
      }
      // Snapshot restore and reset + replay reach the same noisy states: the same tree.
      expect(summary(viaReplay.nodes), taskId).toEqual(summary(viaSnapshot.nodes));
    }
  });

  it("mixes noisy branches with clean controls", { timeout: 120_000 }, async () => {
    const tree = await searched("snapshot", "click-checkboxes");
    const nodes = [...tree.nodes.values()];
    expect(nodes.some((n) => n.noise?.noisy)).toBe(true);
    expect(nodes.some((n) => n.noise && !n.noise.noisy)).toBe(true);
    const tags = new Set(nodes.flatMap((n) => (n.noise?.tag ? [n.noise.tag] : [])));
    expect(tags.size).toBeGreaterThan(0);
  });
});
