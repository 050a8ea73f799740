import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRandom, type HistoryEntry, type Policy } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../src/envs/web/index.ts";
import { createHeuristicWebPolicy } from "../../src/policies/heuristic-web/heuristic-web-policy.ts";

/**
 * The heuristic web policy on pages it was not written for: `test/fixtures/web-unseen/` holds
 * MiniWoB-style `<id>.html` pages (loaded like `--tasks-dir`) with generic clickable spans, divs and
 * list items, collapsibles, date and time inputs, a search box, tabs without ARIA roles and two
 * unlabelled fields. Greedy (temperature 0) episodes on real Chromium, several seeds per page.
 */
const UNSEEN = join(import.meta.dirname, "..", "fixtures", "web-unseen");
const SEEDS = [1, 2, 3];

interface Episode {
  success: boolean;
  steps: number;
  reason: unknown;
}

async function play(env: WebEnvironment, policy: Policy, taskId: string, seed: number): Promise<Episode> {
  const task = env.suite.get(taskId);
  let observation = await env.reset({ taskId, seed });
  const history: HistoryEntry[] = [];
  const random = createRandom(seed);
  for (let step = 0; step < (task.maxSteps ?? 15); step++) {
    const { candidates } = await policy.propose(
      { task, observation, history, stepIndex: step },
      { n: 1, temperature: 0, random },
    );
    const action = candidates[0]?.action ?? { type: "done" };
    const r = await env.step(action);
    history.push({ observation, action, raw: JSON.stringify(action) });
    observation = r.observation;
    if (r.terminated || r.truncated) {
      return { success: r.info.rawReward === 1, steps: step + 1, reason: r.info.reason };
    }
  }
  return { success: false, steps: task.maxSteps ?? 15, reason: "runner cap" };
}

describe("heuristic web policy on unseen pages", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ tasksDir: UNSEEN, observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
  });

  it("solves most unseen MiniWoB-like pages (the policy before generalising solved 1 of 33)", async () => {
    const policy = createHeuristicWebPolicy();
    const ids = env.suite
      .list()
      .map((t) => t.id)
      .sort();
    expect(ids.length).toBeGreaterThanOrEqual(8);
    const failures: string[] = [];
    let passed = 0;
    for (const id of ids) {
      for (const seed of SEEDS) {
        const e = await play(env, policy, id, seed);
        if (e.success) passed += 1;
        else failures.push(`${id}#${seed} (${e.steps} steps, ${String(e.reason)})`);
      }
    }
    const total = ids.length * SEEDS.length;
    // The figure goes into the test output, for the report.
    process.stderr.write(`unseen pass rate ${passed}/${total}; failed: ${failures.join(", ") || "none"}\n`);
    expect(passed / total, failures.join(", ")).toBeGreaterThanOrEqual(0.85);
  }, 600_000);
});
