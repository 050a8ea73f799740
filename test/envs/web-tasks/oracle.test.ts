import { afterAll, describe, it } from "vitest";
import type { Observation } from "../../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment, webStateViewer } from "../../../src/envs/web/index.ts";
import { createLanes, LANE_TIMEOUT_MS } from "../../lanes.ts";
import { shareBrowserAcrossFile } from "../../web-browser.ts";
import { checkRoundTrip } from "../state-views-check.ts";
import { builtinManifests, runOracle } from "./helpers.ts";

// Every built-in web task: following the page's own oracle reaches full reward on several seeds; and
// every observation of the seed-1 run reads into a web state view and renders back exactly.
const SEEDS = [1, 2, 3, 4, 5];
const WEB_KEYS = ["text", "instruction", "axtree", "url", "title", "focused"] as const;
const manifests = builtinManifests();

shareBrowserAcrossFile();

// The tasks run at once, each on an environment of its own (a lane) in the file's one browser.
describe("built-in web tasks: the oracle solves every task", { concurrent: true }, () => {
  const lanes = createLanes(
    () => createWebEnvironment({ observation: { screenshot: false } }),
    (env: WebEnvironment) => env.close(),
  );
  afterAll(() => lanes.close());

  it("the suite lists every task folder", async ({ expect }) => {
    const listed = await lanes.with(async (env) => env.suite.list().map((t) => t.id));
    for (const m of manifests) expect(listed).toContain(m.id);
  });

  for (const m of manifests) {
    it(
      `${m.id} (${m.tier}, ${m.split}) reaches reward 1 on ${SEEDS.length} seeds`,
      {
        timeout: LANE_TIMEOUT_MS,
      },
      async ({ expect }) =>
        lanes.with(async (env) => {
          let elements = 0;
          const viewed = (o: Observation) => {
            const state = checkRoundTrip(webStateViewer, o, WEB_KEYS);
            elements += (state.order as string[]).filter((t) => t.startsWith("el:")).length;
            // Lines the format does not describe are kept raw: only the cut marker may be one.
            const raw = Object.keys(state).filter((k) => k.endsWith(".raw")).length;
            expect(raw, `${m.id}: raw lines`).toBeLessThanOrEqual(
              (o.axtree ?? "").includes(" more lines cut)") ? 1 : 0,
            );
          };
          for (const seed of SEEDS) {
            const run = await runOracle(env, m.id, seed, m.maxSteps, seed === 1 ? viewed : undefined);
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
          expect(elements, `${m.id}: elements in the state views`).toBeGreaterThan(0);
        }),
    );
  }
});
