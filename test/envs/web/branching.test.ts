import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, canonicalJson, type Observation } from "../../../src/core/index.ts";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { oracleSteps } from "./helpers.ts";

/**
 * Cheap branching: a snapshot restored into the live page of the same task and seed (no new browser
 * context, no page load) must reach exactly the state that reset + replay reaches — the same
 * fingerprint, the same observation and the same continuation — and fall back to a fresh page when
 * the page does not come back to the recorded fingerprint.
 */

const NO_SCREENSHOT = { observation: { screenshot: false } } as const;
const TASKS = ["login-user", "click-checkboxes", "settings-toggles", "email-forward", "file-rename"];
const stateOf = (o: Observation | null): string => canonicalJson(o);

/** The oracle's actions from reset, up to `n` (fewer when the task ends first). */
async function oraclePath(env: WebEnvironment, taskId: string, seed: number, n: number): Promise<Action[]> {
  await env.reset({ taskId, seed });
  return oracleSteps(env, n);
}

describe("web environment: branching by in-page restore", () => {
  let pool: BrowserPool;
  let inPage: WebEnvironment;
  let replay: WebEnvironment;
  beforeAll(async () => {
    pool = new BrowserPool();
    inPage = await createWebEnvironment(NO_SCREENSHOT, { pool });
    replay = await createWebEnvironment(NO_SCREENSHOT, { pool });
  });
  afterAll(async () => {
    await inPage?.close();
    await replay?.close();
    await pool?.close();
  });

  it("a child restored in the parent's page equals the child reached by reset + replay, on several tasks", async () => {
    for (const [i, taskId] of TASKS.entries()) {
      const seed = 3 + i;
      const path = await oraclePath(replay, taskId, seed, 4);
      expect(path.length, taskId).toBeGreaterThanOrEqual(2);
      const cut = Math.min(2, path.length - 1);
      const prefix = path.slice(0, cut);
      const rest = path.slice(cut);

      // The parent: reset, the prefix, a snapshot; then it walks on (diverges) in the same page.
      await inPage.reset({ taskId, seed });
      for (const a of prefix) await inPage.step(a);
      const snap = JSON.parse(JSON.stringify(await inPage.snapshot()));
      for (const a of rest) await inPage.step(a);
      const before = inPage.restoreStats();
      const restored = await inPage.restore(snap);
      expect(inPage.restoreStats().inPage, taskId).toBe(before.inPage + 1);
      expect(inPage.restoreStats().fresh, taskId).toBe(before.fresh);

      // The same child by deterministic reset + replay in another environment.
      const replayed = await replay.branchFrom(prefix, { taskId, seed });
      expect(await inPage.fingerprint(), taskId).toBe(replayed.fingerprint);
      expect(stateOf(restored), taskId).toBe(stateOf(replayed.observation));
      // And they continue alike.
      for (const a of rest) {
        const x = await inPage.step(a);
        const y = await replay.step(a);
        expect(stateOf(x.observation), taskId).toBe(stateOf(y.observation));
        expect(x.reward, taskId).toBe(y.reward);
        expect(await inPage.fingerprint(), taskId).toBe(await replay.fingerprint());
      }
      expect(canonicalJson(await inPage.evaluate()), taskId).toBe(canonicalJson(await replay.evaluate()));
    }
  }, 240_000);

  it("restoring many times in the page opens no browser context", async () => {
    const path = await oraclePath(inPage, "click-checkboxes", 11, 3);
    await inPage.reset({ taskId: "click-checkboxes", seed: 11 });
    await inPage.step(path[0] as Action);
    const snap = await inPage.snapshot();
    const print = await inPage.fingerprint();
    const created = pool.contextsCreated;
    for (let i = 0; i < 6; i++) {
      for (const a of path.slice(1)) await inPage.step(a);
      await inPage.restore(snap);
      expect(await inPage.fingerprint()).toBe(print);
    }
    expect(pool.contextsCreated).toBe(created);
    // A snapshot of another seed cannot be restored in place: a freshly reset page then, in the same
    // context (reused on reset, see branching-reuse.test.ts).
    await inPage.reset({ taskId: "click-checkboxes", seed: 12 });
    const other = await inPage.snapshot();
    await inPage.reset({ taskId: "click-checkboxes", seed: 11 });
    const fresh = inPage.restoreStats().fresh;
    const reused = inPage.contextStats().reused;
    await inPage.restore(other);
    expect(inPage.restoreStats().fresh).toBe(fresh + 1);
    expect(inPage.contextStats().reused).toBe(reused + 1);
    expect(pool.contextsCreated).toBe(created);
  }, 120_000);

  it("an in-page restore that does not reach the recorded fingerprint falls back to a fresh page", async () => {
    const path = await oraclePath(inPage, "login-user", 5, 3);
    await inPage.reset({ taskId: "login-user", seed: 5 });
    await inPage.step(path[0] as Action);
    const snap = await inPage.snapshot();
    const print = await inPage.fingerprint();
    const tampered = { ...snap, state: { ...(snap.state as object), fingerprint: "0".repeat(64) } };
    for (const a of path.slice(1)) await inPage.step(a);
    const before = inPage.restoreStats();
    const made = pool.contextsCreated;
    const reused = inPage.contextStats().reused;
    await inPage.restore(tampered);
    expect(inPage.restoreStats()).toEqual({
      inPage: before.inPage,
      fresh: before.fresh + 1,
      fallback: before.fallback + 1,
    });
    // The fresh page is a new episode loaded in the same context.
    expect(inPage.contextStats().reused).toBe(reused + 1);
    expect(pool.contextsCreated).toBe(made);
    // The fresh page holds the saved state (its fingerprint is the real one, not the tampered one).
    expect(await inPage.fingerprint()).toBe(print);
  }, 120_000);

  it("a perturbed state (a noise widget) restores in the page as it does on a fresh page", async () => {
    await inPage.reset({ taskId: "enter-text", seed: 2 });
    const widget = {
      kind: "widget",
      widget: { layout: "banner-top", title: "Cookies", body: ["We use cookies."], buttons: [] },
    };
    expect(await inPage.applyPerturbation({ id: "w0", effect: widget as never })).toBeNull();
    const noisy = await inPage.observeNow();
    const snap = await inPage.snapshot();
    const print = await inPage.fingerprint();
    // A clean episode of the same task and seed in the page: the noisy state comes back in place.
    await inPage.reset({ taskId: "enter-text", seed: 2 });
    const before = inPage.restoreStats();
    const restored = await inPage.restore(snap);
    expect(inPage.restoreStats().inPage).toBe(before.inPage + 1);
    expect(await inPage.fingerprint()).toBe(print);
    expect(stateOf(restored)).toBe(stateOf(noisy));
    expect(await inPage.perturbationStatus()).toEqual(
      await (async () => {
        await replay.restore(snap);
        return replay.perturbationStatus();
      })(),
    );
  }, 120_000);
});
