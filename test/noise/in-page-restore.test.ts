import type { Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, canonicalJson, type Observation } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../src/envs/web/index.ts";
import { CATALOG } from "../../src/noise/catalog.ts";
import { NoisyEnvironment, type PlannedNoiseEvent } from "../../src/noise/noisy-environment.ts";
import { recoveryAction } from "../../src/noise/recovery.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";

/**
 * In-page restore of noisy snapshots: for every generator of the catalog, a snapshot taken under its
 * noise (with a second event still pending in the schedule), restored into the live page after the
 * page changed (a step, the pending event fired, the generator's recovery), must reach what a restore
 * through the reload path reaches — fingerprint, observation, verifier digest, perturbation status,
 * the noise log — and go on the same (the pending event fires on both). The live page is kept: the
 * environment counts an in-page restore and the page's document is the same object.
 */

const TASK = "login-user";
const SEED = 1;
/** Fires after the first step: the page changes under a perturbation the snapshot does not have. */
const PENDING: PlannedNoiseEvent = { id: "e2", step: 1, generator: "toast-info", seed: 5 };

const stateOf = (o: Observation): string => {
  const { screenshot, error: _transient, ...rest } = o;
  return canonicalJson(screenshot ? { ...rest, screenshot: screenshot.sha256 } : rest);
};

interface Reached {
  fingerprint: string;
  observation: string;
  verifier: string;
  status: string;
  events: string;
  /** What the fingerprint does not read: the page's viewport, its context's pages, the layer's hosts. */
  viewport: string;
  pages: number;
  hosts: number | null;
}

async function reached(
  web: WebEnvironment,
  env: NoisyEnvironment,
  observation: Observation,
): Promise<Reached> {
  return {
    fingerprint: await env.fingerprint(),
    observation: stateOf(observation),
    verifier: await web.verifierDigest(),
    status: canonicalJson(await web.perturbationStatus()),
    events: canonicalJson(env.events()),
    viewport: canonicalJson(await web.withPage(async (p) => p.viewportSize())),
    pages: await web.withPage(async (p) => p.context().pages().length),
    // A native dialog blocks the page's scripts.
    hosts: observation.data?.nativeDialog
      ? null
      : await web.withPage((p) => p.evaluate<number>("document.querySelectorAll('rh-noise').length")),
  };
}

/** The live page and a count of its main frame's navigations from now on (none: the same document). */
async function watchLoads(web: WebEnvironment): Promise<{ page: Page; loads: () => number }> {
  const page = await web.withPage(async (p) => p);
  let loads = 0;
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) loads += 1;
  };
  page.on("framenavigated", onNavigated);
  return {
    page,
    loads: () => {
      page.off("framenavigated", onNavigated);
      return loads;
    },
  };
}

shareBrowserAcrossFile();

describe("noisy snapshots restore in the live page exactly as through a reload", () => {
  let web: WebEnvironment;
  let env: NoisyEnvironment;
  beforeAll(async () => {
    web = await createWebEnvironment({ observation: { screenshot: false } });
    env = new NoisyEnvironment(web);
  });
  afterAll(async () => {
    await env?.close();
  });

  /** Restores `snap` through the reload path: the live page shows another task first. */
  async function throughReload(snap: unknown, where: string): Promise<Observation> {
    env.setSchedule([]);
    await env.reset({ taskId: "click-button", seed: 2 });
    const before = web.restoreStats();
    const observation = await env.restore(JSON.parse(JSON.stringify(snap)));
    expect(web.restoreStats(), `${where}: reload`).toEqual({ ...before, fresh: before.fresh + 1 });
    return observation;
  }

  /** Restores `snap` into the live page; checks the page and its document were kept. */
  async function inPage(snap: unknown, where: string): Promise<Observation> {
    const watch = await watchLoads(web);
    const before = web.restoreStats();
    const observation = await env.restore(JSON.parse(JSON.stringify(snap)));
    expect(web.restoreStats(), `${where}: in-page`).toEqual({ ...before, inPage: before.inPage + 1 });
    expect(watch.loads(), `${where}: same document`).toBe(0);
    expect(await web.withPage(async (p) => p), `${where}: same page`).toBe(watch.page);
    return observation;
  }

  /** The next action: the generator's recovery of the first event, else the oracle's, else a wait. */
  async function nextAction(observation: Observation): Promise<Action> {
    const first = env.events()[0];
    return (
      (first ? recoveryAction(first, observation) : null) ??
      (await env.oracleAction()) ?? { type: "wait", ms: 0 }
    );
  }

  it("every catalog generator: a step and a new perturbation later, the snapshot comes back in place", {
    timeout: 600_000,
  }, async () => {
    // A clean snapshot of the same task and seed: restored into each noisy page, all noise must go.
    env.setSchedule([]);
    await env.reset({ taskId: TASK, seed: SEED });
    const clean = await env.snapshot();
    const cleanRef = await reached(web, env, await throughReload(clean, "clean"));
    for (const g of CATALOG) {
      const where = `${g.name} on ${TASK}`;
      env.setSchedule([{ id: "e1", step: 0, generator: g.name, seed: 7 }, PENDING]);
      const first = await env.reset({ taskId: TASK, seed: SEED });
      expect(env.events()[0]?.refused, where).toBeUndefined();
      const snap = await env.snapshot();
      const atSnapshot = await reached(web, env, first);
      // Into the unchanged page (a native dialog still open there is dismissed first).
      const unchanged = await reached(web, env, await inPage(snap, `${where}: unchanged`));
      // The page changes: one step (the recovery, if any), and the pending event fires.
      const action = await nextAction(first);
      await env.step(action);
      expect(
        env.events().map((e) => e.id),
        where,
      ).toEqual(["e1", "e2"]);
      const restored = await reached(web, env, await inPage(snap, where));
      expect(restored.fingerprint, where).toBe(atSnapshot.fingerprint);
      expect(restored.verifier, where).toBe(atSnapshot.verifier);
      // It goes on as the snapshot's episode did: the same action fires the pending event again.
      const continued = await reached(web, env, (await env.step(action)).observation);
      // All of the noise goes with a clean snapshot restored into the noisy page.
      const cleaned = await reached(web, env, await inPage(clean, `${where}: clean`));
      expect(cleaned, `${where}: clean`).toEqual(cleanRef);
      // The same snapshot restored through a reload, and the same step from there.
      const reference = await reached(web, env, await throughReload(snap, where));
      expect(restored, where).toEqual(reference);
      expect(unchanged, `${where}: unchanged`).toEqual(reference);
      expect(continued, `${where}: continued`).toEqual(
        await reached(web, env, (await env.step(action)).observation),
      );
    }
    expect(web.restoreStats()).toEqual({
      inPage: 3 * CATALOG.length,
      fresh: CATALOG.length + 1,
      fallback: 0,
    });
  });
});
