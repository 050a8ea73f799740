import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, canonicalJson, type Observation } from "../../../src/core/index.ts";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { oracleSteps } from "./helpers.ts";

/**
 * Context reuse on reset: the next episode starts in the previous episode's context and page (a
 * navigation, no new context or renderer). It must be exactly the episode a new context starts —
 * the same fingerprint, observation and continuation — whatever task, seed, storage, history or
 * noise the previous episode left, and a crashed page must give way to a new context.
 */

const NO_SCREENSHOT = { observation: { screenshot: false } } as const;
const stateOf = (o: Observation | null): string => canonicalJson(o);

/** What a previous episode may leave in the tab and origin, as the page sees it. */
const LEFTOVERS = `(() => ({
  session: sessionStorage.length,
  local: localStorage.length,
  cookie: document.cookie,
  name: window.name,
  history: history.length,
}))()`;
// A new page's history holds about:blank and the entry page: history.length is 2.

/** Writes what LEFTOVERS reads, and an IndexedDB database (cleared through the browser). */
const LITTER = `(async () => {
  sessionStorage.setItem("s", "1");
  localStorage.setItem("l", "1");
  document.cookie = "c=1; path=/";
  window.name = "left";
  await new Promise((resolve) => { const r = indexedDB.open("left-db"); r.onsuccess = () => { r.result.close(); resolve(null); }; });
  return true;
})()`;

describe("web environment: context reuse on reset", () => {
  let pool: BrowserPool;
  let env: WebEnvironment;
  beforeAll(async () => {
    pool = new BrowserPool();
    env = await createWebEnvironment(NO_SCREENSHOT, { pool });
  });
  afterAll(async () => {
    await env?.close();
    await pool?.close();
  });

  /** The episode a brand-new environment (hence a new context) starts, stepped along `path`. */
  async function freshRun(taskId: string, seed: number, path: ReadonlyArray<Action>) {
    const ref = await createWebEnvironment(NO_SCREENSHOT, { pool });
    try {
      const observations = [stateOf(await ref.reset({ taskId, seed }))];
      const prints = [await ref.fingerprint()];
      const rewards: number[] = [];
      for (const a of path) {
        const r = await ref.step(a);
        observations.push(stateOf(r.observation));
        prints.push(await ref.fingerprint());
        rewards.push(r.reward);
      }
      const leftovers = await ref.withPage((p) => p.evaluate(LEFTOVERS));
      return { observations, prints, rewards, leftovers, evaluation: canonicalJson(await ref.evaluate()) };
    } finally {
      await ref.close();
    }
  }

  it("a reset after another task and seed (storage, cookies, window.name, history left behind) equals a new context's", async () => {
    const cases: Array<[string, number, string, number]> = [
      ["login-user", 3, "click-checkboxes", 4],
      ["click-checkboxes", 4, "login-user", 3],
      ["settings-toggles", 1, "settings-toggles", 2],
      ["email-forward", 7, "enter-password", 5],
    ];
    for (const [prevTask, prevSeed, taskId, seed] of cases) {
      // The previous episode walks, litters its origin and navigates within its page.
      await env.reset({ taskId: prevTask, seed: prevSeed });
      await oracleSteps(env, 2);
      await env.withPage((p) => p.evaluate(LITTER));
      await env.withPage((p) => p.evaluate("history.pushState({}, '', location.href + '#moved')"));
      const before = env.contextStats();
      const created = pool.contextsCreated;

      const first = await env.reset({ taskId, seed });
      expect(env.contextStats(), taskId).toEqual({ opened: before.opened, reused: before.reused + 1 });
      expect(pool.contextsCreated, taskId).toBe(created);
      const observations = [stateOf(first)];
      const prints = [await env.fingerprint()];
      const rewards: number[] = [];
      const path: Action[] = [];
      for (let i = 0; i < 3; i++) {
        const a = await env.oracleAction();
        if (!a) break;
        path.push(a);
        const r = await env.step(a);
        observations.push(stateOf(r.observation));
        prints.push(await env.fingerprint());
        rewards.push(r.reward);
        if (r.terminated || r.truncated) break;
      }
      expect(path.length, taskId).toBeGreaterThan(0);
      const leftovers = await env.withPage((p) => p.evaluate(LEFTOVERS));
      const databases = await env.withPage((p) => p.evaluate("indexedDB.databases().then((d) => d.length)"));
      const fresh = await freshRun(taskId, seed, path);
      expect(prints, taskId).toEqual(fresh.prints);
      expect(observations, taskId).toEqual(fresh.observations);
      expect(rewards, taskId).toEqual(fresh.rewards);
      expect(canonicalJson(await env.evaluate()), taskId).toBe(fresh.evaluation);
      expect(leftovers, taskId).toEqual(fresh.leftovers);
      expect(leftovers, taskId).toEqual({ session: 0, local: 0, cookie: "", name: "", history: 2 });
      expect(databases, taskId).toBe(0);
      // Reused again right after its own episode: the same start.
      await env.reset({ taskId, seed });
      expect(await env.fingerprint(), taskId).toBe(prints[0]);
    }
  }, 300_000);

  it("a snapshot of another task restores in the reused context as reset + replay reaches it", async () => {
    const replay = await createWebEnvironment(NO_SCREENSHOT, { pool });
    try {
      await replay.reset({ taskId: "login-user", seed: 8 });
      const path = await oracleSteps(replay, 3);
      expect(path.length).toBeGreaterThanOrEqual(2);
      const prefix = path.slice(0, 2);
      const reached = await replay.branchFrom(prefix, { taskId: "login-user", seed: 8 });
      const snap = await replay.snapshot();

      await env.reset({ taskId: "settings-toggles", seed: 6 });
      await oracleSteps(env, 1);
      const before = {
        contexts: env.contextStats(),
        restores: env.restoreStats(),
        created: pool.contextsCreated,
      };
      const restored = await env.restore(snap);
      expect(env.restoreStats().fresh).toBe(before.restores.fresh + 1);
      expect(env.contextStats().reused).toBe(before.contexts.reused + 1);
      expect(pool.contextsCreated).toBe(before.created);
      expect(await env.fingerprint()).toBe(reached.fingerprint);
      expect(stateOf(restored)).toBe(stateOf(reached.observation));
      for (const a of path.slice(2)) {
        const x = await env.step(a);
        const y = await replay.step(a);
        expect(stateOf(x.observation)).toBe(stateOf(y.observation));
        expect(await env.fingerprint()).toBe(await replay.fingerprint());
      }
    } finally {
      await replay.close();
    }
  }, 180_000);

  it("a reset after a noise tab and a changed viewport equals a new context's", async () => {
    await env.reset({ taskId: "enter-text", seed: 2 });
    const tab = { kind: "tab", title: "New Tab", text: "", focus: true };
    const viewport = { kind: "viewport", width: 500, height: 400, restoreAfter: 5 };
    expect(await env.applyPerturbation({ id: "v0", effect: viewport as never })).toBeNull();
    expect(await env.applyPerturbation({ id: "t0", effect: tab as never })).toBeNull();
    expect(pool.pageCount()).toBeGreaterThan(1);
    const reused = env.contextStats().reused;
    const first = await env.reset({ taskId: "click-checkboxes", seed: 9 });
    expect(env.contextStats().reused).toBe(reused + 1);
    expect(await env.withPage(async (p) => p.viewportSize())).toEqual({ width: 800, height: 600 });
    const fresh = await freshRun("click-checkboxes", 9, []);
    expect(await env.fingerprint()).toBe(fresh.prints[0]);
    expect(stateOf(first)).toBe(fresh.observations[0]);
  }, 120_000);

  it("a reset after a viewport changed without noise (through the page) equals a new context's", async () => {
    // The restart checks the viewport itself: a page whose viewport is not the configured one gets
    // it back, whether or not the episode's noise changed it.
    await env.reset({ taskId: "enter-text", seed: 2 });
    await env.withPage((p) => p.setViewportSize({ width: 500, height: 400 }));
    const reused = env.contextStats().reused;
    const first = await env.reset({ taskId: "click-checkboxes", seed: 9 });
    expect(env.contextStats().reused).toBe(reused + 1);
    expect(await env.withPage(async (p) => p.viewportSize())).toEqual({ width: 800, height: 600 });
    const inner = await env.withPage((p) => p.evaluate("[window.innerWidth, window.innerHeight]"));
    expect(inner).toEqual([800, 600]);
    const fresh = await freshRun("click-checkboxes", 9, []);
    expect(await env.fingerprint()).toBe(fresh.prints[0]);
    expect(stateOf(first)).toBe(fresh.observations[0]);
  }, 120_000);

  it("after a crashed page the next reset opens a new context, and its episode equals a fresh one", async () => {
    await env.reset({ taskId: "login-user", seed: 1 });
    await env.withPage(async (p) => {
      const cdp = await p.context().newCDPSession(p);
      // The renderer dies at once; the command itself never answers.
      void cdp.send("Page.crash").catch(() => {});
      await p.waitForEvent("crash");
    });
    await expect(env.step({ type: "click", x: 10, y: 10 })).rejects.toMatchObject({
      code: "env.browser_crashed",
    });
    const before = env.contextStats();
    const first = await env.reset({ taskId: "click-checkboxes", seed: 9 });
    expect(env.contextStats()).toEqual({ opened: before.opened + 1, reused: before.reused });
    const fresh = await freshRun("click-checkboxes", 9, []);
    expect(await env.fingerprint()).toBe(fresh.prints[0]);
    expect(stateOf(first)).toBe(fresh.observations[0]);
    // The new context is reused in turn.
    await env.reset({ taskId: "login-user", seed: 1 });
    expect(env.contextStats().reused).toBe(before.reused + 1);
  }, 120_000);
});
