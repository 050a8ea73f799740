import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type Environment } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../src/envs/web/index.ts";
import { createHeuristicWebPolicy } from "../../src/policies/heuristic-web/heuristic-web-policy.ts";
import { runSearch, SearchConfigSchema } from "../../src/search/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { treeView, wrapEnvironment } from "./helpers.ts";

/**
 * Web search with cheap branching: children restored into their environment's live page (several
 * environments reaching their states concurrently) give the same verified tree as children reached
 * by reset + replay, and no child needs a new browser context once its environment shows the task.
 * Prewarmed environments (search/prewarm.ts): an environment left idle at a tree's start loads the
 * tree's task and seed in the background, so that even its first child restores into the live page;
 * the verified tree is the one a search without prewarming finds.
 */

const TASKS = ["login-user", "click-checkboxes"];

async function search(envs: Environment[], seed = "b") {
  const store = createMemoryStore();
  store.createRun({ id: seed, kind: "search", seed, config: {}, codeVersion: "test", createdAtMs: 0 });
  const tasks = TASKS.map((id) => (envs[0] as Environment).suite.get(id));
  for (const t of tasks) store.putTask(seed, t);
  const config = SearchConfigSchema.parse({ maxLiveEnvs: envs.length, maxNodesPerTree: 10 });
  return runSearch(
    { envs, policy: createHeuristicWebPolicy(), runtime: createRuntime({ seed }), store },
    { runId: seed, seed, tasks, config },
  );
}

describe("search over web environments: branching by in-page restore", () => {
  let envs: WebEnvironment[];
  beforeAll(async () => {
    envs = [];
    for (let i = 0; i < 2; i++) envs.push(await createWebEnvironment({ observation: { screenshot: false } }));
  });
  afterAll(async () => {
    for (const e of envs ?? []) await e.close();
  });

  it("gives the same tree as reset + replay; restores are in place after each environment's first", async () => {
    const restored = await search(envs);
    const stats = envs.map((e) => e.restoreStats());
    const inPage = stats.reduce((a, s) => a + s.inPage, 0);
    const fresh = stats.reduce((a, s) => a + s.fresh, 0);
    const restores = restored.tasks.reduce((a, t) => a + t.counters.restores, 0);
    expect(restores).toBeGreaterThan(0);
    expect(inPage + fresh).toBe(restores);
    // A fresh page only where the environment did not show the tree's task yet.
    expect(fresh).toBeLessThanOrEqual(TASKS.length * envs.length);
    expect(inPage).toBeGreaterThan(fresh);
    expect(stats.every((s) => s.fallback === 0)).toBe(true);
    expect(restored.tasks.every((t) => t.counters.mismatches === 0)).toBe(true);

    const replay = await search(envs.map((e) => wrapEnvironment(e, { hideSnapshot: true })));
    expect(replay.tasks.reduce((a, t) => a + t.counters.replaySteps, 0)).toBeGreaterThan(0);
    for (let i = 0; i < TASKS.length; i++) {
      expect(treeView(replay.tasks[i]!.nodes.values())).toEqual(treeView(restored.tasks[i]!.nodes.values()));
    }
  }, 300_000);

  const restoresOf = () => {
    const stats = envs.map((e) => e.restoreStats());
    return {
      inPage: stats.reduce((a, s) => a + s.inPage, 0),
      fresh: stats.reduce((a, s) => a + s.fresh, 0),
    };
  };

  it("prewarmed: every child restores in place, and the tree equals the one found without prewarming", async () => {
    const start = restoresOf();
    const warm = await search(envs, "p");
    const after = restoresOf();
    const restores = warm.tasks.reduce((a, t) => a + t.counters.restores, 0);
    expect(restores).toBeGreaterThan(0);
    expect(after.inPage - start.inPage).toBe(restores);
    expect(after.fresh - start.fresh).toBe(0);
    expect(warm.tasks.every((t) => t.counters.mismatches === 0)).toBe(true);

    // The same environments behind a wrapper without `prewarm`: first children restore on a fresh page.
    const cold = await search(
      envs.map((e) => wrapEnvironment(e)),
      "p",
    );
    expect(restoresOf().fresh).toBeGreaterThan(after.fresh);
    for (let i = 0; i < TASKS.length; i++) {
      expect(treeView(cold.tasks[i]!.nodes.values())).toEqual(treeView(warm.tasks[i]!.nodes.values()));
    }
  }, 300_000);
});
