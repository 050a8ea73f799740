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
  let webs: WebEnvironment[];
  beforeAll(async () => {
    webs = await Promise.all([0, 1].map(() => createWebEnvironment({ observation: { screenshot: false } })));
  });
  afterAll(async () => {
    await Promise.all((webs ?? []).map((w) => w.close()));
  });

  it("tags every leaf, records what fired and when it was recovered, and replays noisy prefixes exactly", {
    timeout: 240_000,
  }, async () => {
    for (const taskId of ["login-user", "click-checkboxes"]) {
      const viaSnapshot = await search(webs, taskId);
      const viaReplay = await search(webs.map(replayOnly), taskId);
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
    const tree = await search(webs, "click-checkboxes");
    const nodes = [...tree.nodes.values()];
    expect(nodes.some((n) => n.noise?.noisy)).toBe(true);
    expect(nodes.some((n) => n.noise && !n.noise.noisy)).toBe(true);
    const tags = new Set(nodes.flatMap((n) => (n.noise?.tag ? [n.noise.tag] : [])));
    expect(tags.size).toBeGreaterThan(0);
  });
});
