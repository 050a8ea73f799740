import { describe, expect, it } from "vitest";
import {
  type Action,
  createRuntime,
  type Environment,
  InternalError,
  isRehearsalError,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import type { NoiseEventRecord, PlannedNoiseEvent } from "../../src/noise/noisy-environment.ts";
import { noiseTag } from "../../src/noise/tags.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  type NoiseSlot,
  SearchConfigSchema,
  type SearchNode,
  searchTree,
  type TreeNoise,
  TreeState,
} from "../../src/search/index.ts";
import { execute, type Slot, slotsOf, type TreeRun } from "../../src/search/tree-phases.ts";
import { noisyOraclePolicy } from "./helpers.ts";

/**
 * A noise slot over FrozenLake (which cannot be perturbed): it records the schedules the search sets
 * and reports the planned events up to the current step as fired. It shows that noise reaches the
 * tree only through the `TreeNoise` hook — the search never asks what kind of environment it has.
 */
function recordingSlot(inner: Environment, log: Array<ReadonlyArray<PlannedNoiseEvent> | null>): NoiseSlot {
  let schedule: ReadonlyArray<PlannedNoiseEvent> = [];
  let steps = 0;
  return {
    family: inner.family,
    suite: inner.suite,
    capabilities: inner.capabilities,
    async reset(o) {
      steps = 0;
      return inner.reset(o);
    },
    async step(a: Action) {
      steps += 1;
      return inner.step(a);
    },
    evaluate: () => inner.evaluate(),
    fingerprint: () => inner.fingerprint(),
    async snapshot() {
      const snap = await inner.snapshot!();
      return { ...snap, state: { inner: snap.state, steps } };
    },
    async restore(snap) {
      steps = (snap.state as { steps: number }).steps;
      return inner.restore!({ ...snap, state: (snap.state as { inner: unknown }).inner });
    },
    oracleAction: () => inner.oracleAction!(),
    close: () => inner.close(),
    setSchedule(events) {
      log.push(events);
      schedule = events ?? [];
    },
    events(): NoiseEventRecord[] {
      return schedule
        .filter((e) => e.step <= steps)
        .map((e) => ({ ...e, tier: "T2", cost: 1, recoveredAt: null }));
    },
  };
}

describe("noise enters the tree through the TreeNoise hook", () => {
  it("attaches each slot once, sets every node's schedule before it reaches its state, tags leaves with the hook", async () => {
    const schedules: Array<ReadonlyArray<PlannedNoiseEvent> | null> = [];
    const envs = [0, 1].map(() => createFrozenLakeEnvironment({ slippery: false }));
    let attached = 0;
    const tagged: string[] = [];
    const noise: TreeNoise = {
      fraction: 0.5,
      successRate: 0.5,
      plan: ({ rollout, fromStep }) => [
        { id: `${rollout}@${fromStep}`, step: fromStep, generator: "test", seed: 1 },
      ],
      attach(env) {
        attached += 1;
        return recordingSlot(env, schedules);
      },
      tag(events, success) {
        tagged.push(`${events.length}:${success}`);
        return noiseTag(events, success);
      },
    };
    const task = (envs[0] as Environment).suite.get("4x4");
    const tree = await searchTree(
      { envs, policy: noisyOraclePolicy(0.6), runtime: createRuntime({ seed: "hook" }) },
      {
        treeId: "hook",
        task,
        seed: 3,
        randomKey: "hook",
        config: SearchConfigSchema.parse({ maxLiveEnvs: 2, maxNodesPerTree: 12 }),
        noise,
      },
    );
    const nodes = [...tree.nodes.values()];
    expect(attached).toBe(2);
    expect(tree.counters.mismatches).toBe(0);
    expect(nodes.every((n) => n.noise !== undefined)).toBe(true);
    expect(nodes.some((n) => n.noise?.noisy) && nodes.some((n) => !n.noise?.noisy)).toBe(true);
    // Every activation set the node's own path schedule.
    expect(schedules.length).toBeGreaterThanOrEqual(nodes.filter((n) => n.status !== "pending").length);
    for (const n of nodes) expect(schedules).toContainEqual(n.noise?.schedule);
    const leaves = nodes.filter((n) => n.status === "leaf");
    expect(leaves.length).toBeGreaterThan(1);
    expect(tagged.length).toBe(leaves.length);
    for (const leaf of leaves) {
      expect(leaf.noise?.events?.every((e) => e.step <= leaf.prefix.length)).toBe(true);
      expect(leaf.noise?.tag).toBe(noiseTag(leaf.noise?.events ?? [], leaf.outcome?.success ?? false));
    }
    for (const e of envs) await e.close();
  });
});

describe("tree phases", () => {
  it("stepping a node that has not reached its state is a typed internal error naming the node", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const spec = {
      treeId: "t",
      task: env.suite.get("4x4"),
      seed: 1,
      randomKey: "k",
      config: SearchConfigSchema.parse({}),
    };
    const run: TreeRun = {
      deps: { envs: [env], policy: createRandomPolicy(), runtime: createRuntime({ seed: "k" }) },
      spec,
      state: new TreeState("t"),
    };
    const node: SearchNode = run.state.add({
      parentId: null,
      fromStep: 0,
      prefix: [],
      budget: 1,
      hasBranched: false,
      status: "pending",
    });
    await env.reset({ taskId: "4x4", seed: 1 });
    const [slot] = slotsOf([env], spec);
    const err = await execute(run, node, slot as Slot, { type: "move", direction: "down" }, "down").catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InternalError);
    expect(isRehearsalError(err) && err.code).toBe("search.node_without_observation");
    expect((err as Error).message).toContain("t/n0");
    // The environment was not stepped.
    expect(run.state.counters.envSteps).toBe(0);
    await env.close();
  });
});
