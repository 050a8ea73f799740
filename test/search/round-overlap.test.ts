import { describe, expect, it } from "vitest";
import { createRuntime, type Environment } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runSearch, SearchConfigSchema } from "../../src/search/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { treeView } from "./helpers.ts";

/**
 * Within a round, a node that did not branch makes its move without waiting for the state capture
 * (snapshot) of the nodes that did (search/tree-round.ts `move`): with snapshots made slow, some
 * node's step runs while another environment's snapshot is in flight. The tree is the one found
 * with instant snapshots.
 */

async function search(snapshotDelayMs: number) {
  const snapshotsInFlight = new Set<number>();
  let stepsDuringSnapshot = 0;
  const envs: Environment[] = Array.from({ length: 3 }, (_, i) => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    return {
      family: env.family,
      suite: env.suite,
      capabilities: env.capabilities,
      reset: (o) => env.reset(o),
      step: (a) => {
        if ([...snapshotsInFlight].some((e) => e !== i)) stepsDuringSnapshot += 1;
        return env.step(a);
      },
      evaluate: () => env.evaluate(),
      fingerprint: () => env.fingerprint(),
      snapshot: async () => {
        snapshotsInFlight.add(i);
        try {
          const snap = await env.snapshot!();
          await new Promise((r) => setTimeout(r, snapshotDelayMs));
          return snap;
        } finally {
          snapshotsInFlight.delete(i);
        }
      },
      restore: (s) => env.restore!(s),
      close: () => env.close(),
    };
  });
  const store = createMemoryStore();
  store.createRun({ id: "r", kind: "search", seed: "s", config: {}, codeVersion: "test", createdAtMs: 0 });
  const tasks = ["4x4", "8x8"].map((id) => (envs[0] as Environment).suite.get(id));
  for (const t of tasks) store.putTask("r", t);
  const result = await runSearch(
    { envs, policy: createRandomPolicy(), runtime: createRuntime({ seed: "s" }), store },
    {
      runId: "r",
      seed: "s",
      tasks,
      config: SearchConfigSchema.parse({ maxLiveEnvs: 3, maxNodesPerTree: 12 }),
    },
  );
  return { result, stepsDuringSnapshot };
}

describe("search round: moves overlap other nodes' captures", () => {
  it("a node steps while another node's snapshot runs; same trees as with instant snapshots", async () => {
    const slow = await search(20);
    const instant = await search(0);
    expect(slow.stepsDuringSnapshot).toBeGreaterThan(0);
    for (let t = 0; t < 2; t++)
      expect(treeView(slow.result.tasks[t]!.nodes.values())).toEqual(
        treeView(instant.result.tasks[t]!.nodes.values()),
      );
  });
});
