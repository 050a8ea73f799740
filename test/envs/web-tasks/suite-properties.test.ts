import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Action, createRandom, type EnvironmentSnapshot } from "../../../src/core/index.ts";
import {
  BUILTIN_TASKS_DIR,
  createWebEnvironment,
  createWebSuite,
  type WebEnvironment,
} from "../../../src/envs/web/index.ts";
import { createLanes, LANE_TIMEOUT_MS } from "../../lanes.ts";
import { shareBrowserAcrossFile } from "../../web-browser.ts";
import { axElements, builtinManifests, continueOracle } from "./helpers.ts";

const manifests = builtinManifests();
const longTasks = manifests.filter((m) => m.tier === "long");

describe("built-in web task manifests", () => {
  it("has at least 10 short and 10 long tasks, about a quarter of each tier held out", () => {
    for (const tier of ["short", "long"] as const) {
      const ms = manifests.filter((m) => m.tier === tier);
      expect(ms.length).toBeGreaterThanOrEqual(10);
      const held = ms.filter((m) => m.split === "heldout").length / ms.length;
      expect(held).toBeGreaterThanOrEqual(0.15);
      expect(held).toBeLessThanOrEqual(0.4);
    }
  });

  it("loads the shared app scripts from tasks/_shared, which is not a task", () => {
    for (const [file, ids] of [
      ["mail-app.js", ["email-reply", "email-forward", "email-delete-find"]],
      ["files-app.js", ["file-rename", "file-move"]],
    ] as const) {
      expect(existsSync(join(BUILTIN_TASKS_DIR, "_shared", file))).toBe(true);
      for (const id of ids) {
        expect(readFileSync(join(BUILTIN_TASKS_DIR, id, "index.html"), "utf8")).toContain(
          `src="../_shared/${file}"`,
        );
      }
    }
    expect(
      createWebSuite()
        .list()
        .map((t) => t.id),
    ).not.toContain("_shared");
  });
});

shareBrowserAcrossFile();

// The cases run at once, each on an environment of its own (a lane) in the file's one browser; the
// long random-play case first, so that the others fill the time it takes.
describe("built-in web tasks: seeding, random play, snapshots", { concurrent: true }, () => {
  const lanes = createLanes(
    () => createWebEnvironment({ observation: { screenshot: false } }),
    (env: WebEnvironment) => env.close(),
  );
  afterAll(() => lanes.close());

  it(
    "seeded random clicking and typing never solves a long task",
    { timeout: LANE_TIMEOUT_MS },
    async ({ expect }) =>
      lanes.with(async (env) => {
        const rng = createRandom("web-tasks", "random-policy");
        let wins = 0;
        for (let ep = 0; ep < 20; ep++) {
          const m = longTasks[ep % longTasks.length]!;
          let obs = await env.reset({ taskId: m.id, seed: 500 + ep });
          for (let step = 0; step < m.maxSteps; step++) {
            const els = axElements(obs.axtree ?? "").filter(
              (e) => !/\bStaticText\b|\bheading\b|\bgeneric\b/.test(e.line),
            );
            if (els.length === 0) break;
            const el = rng.pick(els);
            const action: Action = /textbox|searchbox|combobox/.test(el.line)
              ? { type: "type", elementId: el.id, text: `x${rng.int(1000)}` }
              : { type: "click", elementId: el.id };
            const r = await env.step(action);
            obs = r.observation;
            if (r.terminated || r.truncated) break;
          }
          const result = await env.evaluate();
          if (result.success) wins++;
          expect(result.reward, `${m.id} episode ${ep}`).toBeLessThan(1);
        }
        expect(wins).toBe(0);
      }),
  );

  for (const m of manifests) {
    it(
      `${m.id}: the same seed gives the same page, different seeds different pages`,
      {
        timeout: LANE_TIMEOUT_MS,
      },
      async ({ expect }) =>
        lanes.with(async (env) => {
          const textOf = async (seed: number) => (await env.reset({ taskId: m.id, seed })).text;
          const page21 = await textOf(21);
          expect(await textOf(21), "seed 21 twice").toBe(page21);
          // Another seed's page against seed 21's (one reset per pair instead of two), up to three seeds.
          let varies = false;
          for (const seed of [31, 33, 35]) {
            if ((await textOf(seed)) !== page21) {
              varies = true;
              break;
            }
          }
          expect(varies, "seeds 31, 33 and 35 all gave seed 21's page").toBe(true);
        }),
    );
  }

  for (const m of manifests) {
    it(
      `${m.id}: snapshot, act, restore gives back the saved state and the oracle still finishes`,
      {
        timeout: LANE_TIMEOUT_MS,
      },
      async ({ expect }) =>
        lanes.with(async (env) => {
          // One oracle episode, with the fingerprint and a snapshot of the state before each action:
          // the states after k oracle steps, as a reset and a replay of those k steps would reach them.
          await env.reset({ taskId: m.id, seed: 7 });
          const saved: Array<{ before: string; snap: EnvironmentSnapshot }> = [];
          const actions: Action[] = [];
          while (actions.length < m.maxSteps) {
            saved.push({ before: await env.fingerprint(), snap: await env.snapshot() });
            const a = await env.oracleAction();
            if (!a) break;
            actions.push(a);
            const r = await env.step(a);
            if (r.terminated || r.truncated) break;
          }
          const n = actions.length;
          // Snapshot points strictly inside the solution (a one-step task has none).
          const points = [...new Set([Math.floor(n / 3), Math.floor((2 * n) / 3)])].filter(
            (k) => k >= 1 && k < n,
          );
          for (const k of points) {
            const context = `${m.id} after ${k} of ${n} oracle steps`;
            const { before, snap } = saved[k]!;
            // Restored after the rest of the episode was played from that state.
            await env.restore(JSON.parse(JSON.stringify(snap)));
            expect(await env.fingerprint(), `${context}: restored after the episode`).toBe(before);
            expect(await env.supportsSnapshot(), context).toBe(true);
            await env.step(actions[k]!);
            expect(await env.fingerprint(), `${context}: the next action changes the state`).not.toBe(before);
            await env.restore(JSON.parse(JSON.stringify(snap)));
            expect(await env.fingerprint(), `${context}: restored state`).toBe(before);
            const rest = await continueOracle(env, m.maxSteps, actions.slice(0, k));
            expect(rest.result.success, `${context}: oracle after restore (${rest.result.reason})`).toBe(
              true,
            );
          }
        }),
    );
  }

  it(
    "shop-buy gives a partial score below 1 for a near miss (wrong quantity)",
    {
      timeout: LANE_TIMEOUT_MS,
    },
    async ({ expect }) =>
      lanes.with(async (env) => {
        await env.reset({ taskId: "shop-buy", seed: 3 });
        let obs = null;
        for (let i = 0; i < 20; i++) {
          const a = await env.oracleAction();
          if (!a) break;
          if (a.type === "select") {
            obs = (await env.step({ ...a, value: a.value === "5" ? "4" : "5" })).observation;
            break;
          }
          await env.step(a);
        }
        expect(obs).not.toBeNull();
        const buy = axElements(obs!.axtree ?? "").find((e) => /button "Buy now"/.test(e.line));
        obs = (await env.step({ type: "click", elementId: buy!.id })).observation;
        const place = axElements(obs.axtree ?? "").find((e) => /button "Place order"/.test(e.line));
        const r = await env.step({ type: "click", elementId: place!.id });
        expect(r.terminated).toBe(true);
        const result = await env.evaluate();
        expect(result.success).toBe(false);
        expect(result.reward).toBeGreaterThan(0.5);
        expect(result.reward).toBeLessThan(1);
      }),
  );
});
