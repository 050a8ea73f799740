import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { builtinManifests, runOracle } from "./helpers.ts";

// Every built-in web task: following the page's own oracle reaches full reward on several seeds.
const SEEDS = [1, 2, 3, 4, 5];
const manifests = builtinManifests();

describe("built-in web tasks: the oracle solves every task", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env?.close();
  });

  it("the suite lists every task folder", () => {
    const listed = env.suite.list().map((t) => t.id);
    for (const m of manifests) expect(listed).toContain(m.id);
  });

  for (const m of manifests) {
    it(`${m.id} (${m.tier}, ${m.split}) reaches reward 1 on ${SEEDS.length} seeds`, {
      timeout: 180_000,
    }, async () => {
      for (const seed of SEEDS) {
        const run = await runOracle(env, m.id, seed, m.maxSteps);
        const context = `${m.id} seed ${seed}: ${run.result.reason}; actions ${JSON.stringify(run.actions)}`;
        expect(run.errors, context).toEqual([]);
        expect(run.result.success, context).toBe(true);
        expect(run.result.reward, context).toBe(1);
        // Tiers are honest: short tasks take 1-3 steps, long ones 8-15.
        if (m.tier === "short") expect(run.actions.length, context).toBeLessThanOrEqual(3);
        else {
          expect(run.actions.length, context).toBeGreaterThanOrEqual(8);
          expect(run.actions.length, context).toBeLessThanOrEqual(15);
        }
      }
    });
  }
});
