import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";

/**
 * A reset in the previous episode's page loads the entry page straight from the previous page (no
 * about:blank hop) unless storage must be cleared or the page defeats the history mark; either way
 * the page's history is a new page's (two entries, the entry URL without a fragment) and the episode
 * is the one a new context starts.
 */

const NO_SCREENSHOT = { observation: { screenshot: false } } as const;
// The path, not the href: each environment serves its tasks on a port of its own.
const HISTORY =
  "({ length: history.length, path: location.pathname + location.search, hash: location.hash })";

describe("web environment: the history of a reused page", () => {
  let env: WebEnvironment;
  let fresh: { history: unknown; print: string; observation: string };
  const navigations: string[] = [];
  beforeAll(async () => {
    env = await createWebEnvironment(NO_SCREENSHOT);
    const ref = await createWebEnvironment(NO_SCREENSHOT);
    try {
      const observation = canonicalJson(await ref.reset({ taskId: "click-button", seed: 4 }));
      fresh = {
        history: await ref.withPage((p) => p.evaluate(HISTORY)),
        print: await ref.fingerprint(),
        observation,
      };
    } finally {
      await ref.close();
    }
    await env.reset({ taskId: "click-button", seed: 4 });
    await env.withPage(async (p: Page) => {
      p.on("framenavigated", (f) => {
        if (f === p.mainFrame()) navigations.push(f.url());
      });
    });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  /** Resets to click-button seed 4 after `before` ran in the previous page; what the page then shows. */
  async function resetAfter(before: string) {
    await env.withPage((p) => p.evaluate(before));
    const reused = env.contextStats().reused;
    navigations.length = 0;
    const observation = canonicalJson(await env.reset({ taskId: "click-button", seed: 4 }));
    expect(env.contextStats().reused).toBe(reused + 1);
    return {
      history: await env.withPage((p) => p.evaluate(HISTORY)),
      print: await env.fingerprint(),
      observation,
      hop: navigations.includes("about:blank"),
    };
  }

  it("the same URL again: two history entries, no fragment, a new context's episode, no hop", async () => {
    const again = await resetAfter("true");
    expect(again.history).toEqual(fresh.history);
    expect(again.history).toMatchObject({ length: 2, hash: "" });
    expect(again.print).toBe(fresh.print);
    expect(again.observation).toBe(fresh.observation);
    expect(again.hop).toBe(false);
  }, 120_000);

  it("after in-page history entries and a fragment: still a new page's history", async () => {
    const moved = await resetAfter(
      "history.pushState({}, '', '#a'); history.pushState({}, '', '#b'); location.hash = 'c'; true",
    );
    expect(moved.history).toEqual(fresh.history);
    expect(moved.print).toBe(fresh.print);
    expect(moved.hop).toBe(false);
  }, 120_000);

  it("a page that disables history.replaceState takes the about:blank hop, with the same result", async () => {
    const defeated = await resetAfter("history.replaceState = () => {}; true");
    expect(defeated.hop).toBe(true);
    expect(defeated.history).toEqual(fresh.history);
    expect(defeated.print).toBe(fresh.print);
    expect(defeated.observation).toBe(fresh.observation);
  }, 120_000);

  it("errors the previous page still throws while the entry page loads do not fail the restart", async () => {
    // Without the hop the previous page lives until the new document commits; its errors are not the
    // entry page's (counted as the page's, they would make the restart fail and open a new context).
    const noisy = await resetAfter(
      "(function f() { requestAnimationFrame(f); Promise.reject(new Error('previous page')); })(); true",
    );
    expect(noisy.hop).toBe(false);
    expect(noisy.history).toEqual(fresh.history);
    expect(noisy.print).toBe(fresh.print);
    expect(noisy.observation).toBe(fresh.observation);
  }, 120_000);

  it("a page that left a cookie takes the hop (storage cleared with no document of the origin live)", async () => {
    const cleared = await resetAfter("document.cookie = 'left=1; path=/'; true");
    expect(cleared.hop).toBe(true);
    expect(cleared.history).toEqual(fresh.history);
    expect(await env.withPage((p) => p.evaluate("document.cookie"))).toBe("");
    expect(cleared.print).toBe(fresh.print);
  }, 120_000);
});
