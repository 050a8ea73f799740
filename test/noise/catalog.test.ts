import { afterAll, describe, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { createWebEnvironment } from "../../src/envs/web/index.ts";
import { CATALOG, generatorsOf } from "../../src/noise/catalog.ts";
import { RECOVERY_BEHAVIOURS } from "../../src/noise/generator.ts";
import { NoisyEnvironment } from "../../src/noise/noisy-environment.ts";
import { recoveryAction } from "../../src/noise/recovery.ts";
import { createLanes, LANE_TIMEOUT_MS } from "../lanes.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";

// Three tasks with different targets: text inputs (focus steals), buttons, checkboxes.
const TASKS = ["login-user", "click-button", "click-checkboxes"];

shareBrowserAcrossFile();

describe("noise catalog: metadata", () => {
  it("has ≥ 40 generators in three tiers, ≥ 8 held out, unique names and valid fields", () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(40);
    expect(generatorsOf("heldout").length).toBeGreaterThanOrEqual(8);
    expect(new Set(CATALOG.map((g) => g.name)).size).toBe(CATALOG.length);
    for (const tier of ["T1", "T2", "T3"]) {
      expect(CATALOG.filter((g) => g.tier === tier).length).toBeGreaterThanOrEqual(8);
      expect(generatorsOf("heldout").some((g) => g.tier === tier)).toBe(true);
    }
    for (const g of CATALOG) {
      expect([0, 1, 2, 3]).toContain(g.cost);
      expect(RECOVERY_BEHAVIOURS).toContain(g.recovery);
      expect(g.category.length).toBeGreaterThan(0);
      expect(g.description.length).toBeGreaterThan(10);
    }
  });

  it("covers the kinds the issue names", () => {
    const kinds = new Set(CATALOG.map((g) => g.build(createRandom("kinds", g.name)).kind));
    expect([...kinds].sort()).toEqual(["native_dialog", "scroll_jump", "tab", "viewport", "widget"]);
    const dialogs = CATALOG.map((g) => g.build(createRandom("k", g.name))).flatMap((e) =>
      e.kind === "native_dialog" ? [e.dialog] : [],
    );
    expect(new Set(dialogs)).toEqual(new Set(["alert", "confirm", "prompt"]));
    const recoveries = new Set(CATALOG.map((g) => g.recovery));
    for (const r of ["refocus", "dismiss", "escape", "wait", "move", "scroll", "ignore"])
      expect(recoveries).toContain(r);
  });

  it("builds different concrete events from different seeds, the same from the same seed", () => {
    const varied = CATALOG.filter((g) => {
      const a = JSON.stringify(g.build(createRandom("noise-event", 1)));
      const b = JSON.stringify(g.build(createRandom("noise-event", 1)));
      expect(a).toBe(b);
      const others = [2, 3, 4, 5, 6].map((s) => JSON.stringify(g.build(createRandom("noise-event", s))));
      return others.some((o) => o !== a);
    });
    expect(varied.length).toBeGreaterThanOrEqual(20);
  });
});

// Each task (and the input check) runs at once on a web environment of its own (a lane) in the file's
// one browser; each plays its generators one after the other, as before.
describe("noise catalog: every generator on three tasks (inject, non-sabotage, recover, solve)", {
  concurrent: true,
}, () => {
  const lanes = createLanes(
    async () => {
      const web = await createWebEnvironment({ observation: { screenshot: false } });
      return { web, env: new NoisyEnvironment(web, { verifyNonSabotage: true }) };
    },
    ({ env }: { env: NoisyEnvironment }) => env.close(),
  );
  afterAll(() => lanes.close());

  for (const taskId of TASKS) {
    it(
      `${taskId}: each generator fires, leaves the verifier state alone, restores from a snapshot, and recovery + oracle succeeds`,
      {
        timeout: LANE_TIMEOUT_MS,
      },
      async ({ expect }) =>
        lanes.with(async ({ web, env }) => {
          const clean = await web.reset({ taskId, seed: 1 }).then(() => web.fingerprint());
          for (const g of CATALOG) {
            const where = `${g.name} on ${taskId}`;
            env.setSchedule([{ id: "e1", step: 0, generator: g.name, seed: 7 }]);
            let observation = await env.reset({ taskId, seed: 1 });
            const fired = env.events()[0];
            expect(fired?.refused, where).toBeUndefined();
            expect(fired?.verifierUnchanged, where).toBe(true);
            const noisy = await env.fingerprint();
            if (g.category !== "shove" || g.name === "layout-shift-banner")
              expect(noisy, `${where}: no visible effect`).not.toBe(clean);
            // The perturbed state survives snapshot + restore exactly.
            const snapshot = await env.snapshot();
            await env.restore(snapshot);
            expect(await env.fingerprint(), `${where}: snapshot`).toBe(noisy);
            // The generator's own recovery, then the task's oracle.
            let ended = false;
            for (let i = 0; i < 6 && (env.events()[0]?.recoveredAt ?? null) === null; i++) {
              const action = recoveryAction(env.events()[0]!, observation);
              if (!action) break;
              const r = await env.step(action);
              observation = r.observation;
              ended = r.terminated || r.truncated;
              if (ended || g.recoveredBy === "next_action") break;
            }
            if (g.recovery !== "ignore" && g.recoveredBy === "status")
              expect(env.events()[0]?.recoveredAt, `${where}: recovered`).not.toBeNull();
            for (let i = 0; i < 20 && !ended; i++) {
              const action = await env.oracleAction();
              if (!action) break;
              const r = await env.step(action);
              ended = r.terminated || r.truncated;
            }
            const outcome = await env.evaluate();
            expect(outcome.success, `${where}: ${outcome.reason}`).toBe(true);
            // Effects that only need re-locating count as recovered at the next action that applied.
            if (g.recoveredBy === "next_action")
              expect(env.events()[0]?.recoveredAt, `${where}: recovered`).not.toBeNull();
            expect(outcome.metrics.noiseEvents, where).toBe(1);
          }
        }),
    );
  }

  it(
    "noise never delivers input to task elements (capture listeners on the task page count none)",
    {
      timeout: LANE_TIMEOUT_MS,
    },
    async ({ expect }) =>
      lanes.with(async ({ web }) => {
        const INPUT = [
          "click",
          "mousedown",
          "mouseup",
          "pointerdown",
          "keydown",
          "keyup",
          "input",
          "change",
          "beforeinput",
        ];
        // Each generator on the same clean page: one reset, then that state restored before each
        // generator (the restore takes the last generator's noise out of the page).
        await web.reset({ taskId: "login-user", seed: 2 });
        const clean = await web.snapshot();
        for (const g of CATALOG) {
          await web.restore(structuredClone(clean));
          // The listeners stay with the page's document; a restore that loads the page afresh drops
          // them, so they are added again there.
          await web.withPage((p) =>
            p.evaluate(`(() => {
          window.__inputToTask = [];
          if (window.__inputWatched) return true;
          window.__inputWatched = true;
          for (const type of ${JSON.stringify(INPUT)}) {
            document.addEventListener(type, (e) => {
              const t = e.composedPath()[0];
              if (t && t.closest && !t.closest("rh-noise") && !(t.getRootNode() instanceof ShadowRoot))
                window.__inputToTask.push(type + ":" + (t.id || t.tagName));
            }, true);
          }
          return true;
        })()`),
          );
          const refusal = await web.applyPerturbation({
            id: "e1",
            effect: g.build(createRandom("noise-event", 3)),
          });
          expect(refusal, g.name).toBeNull();
          await web.advancePerturbations();
          await web.advancePerturbations();
          if (g.build(createRandom("noise-event", 3)).kind === "native_dialog")
            await web.step({ type: "key", keys: "Escape" });
          const seen = await web.withPage((p) => p.evaluate("window.__inputToTask"));
          expect(seen, g.name).toEqual([]);
        }
      }),
  );
});
