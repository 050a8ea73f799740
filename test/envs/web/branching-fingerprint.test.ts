import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { idsWhere } from "./helpers.ts";

/**
 * The fingerprint of a state just observed is read with the observation (one evaluation per step,
 * see EpisodeIO.pageFingerprint). It must be the fingerprint a fresh read of the page gives, and any
 * change to the page after that view must show in the next fingerprint.
 */

describe("web environment: the fingerprint read with the view", () => {
  let pool: BrowserPool;
  let env: WebEnvironment;
  beforeAll(async () => {
    pool = new BrowserPool();
    env = await createWebEnvironment({ observation: { screenshot: false } }, { pool });
  });
  afterAll(async () => {
    await env?.close();
    await pool?.close();
  });

  /** The fingerprint read anew from the page (withPage drops the one read with the view). */
  async function freshPrint(): Promise<string> {
    await env.withPage(async () => undefined);
    return env.fingerprint();
  }

  it("equals a fresh read after reset, after every step and after a restore", async () => {
    const first = await env.reset({ taskId: "click-checkboxes", seed: 3 });
    const ids = idsWhere(first, /checkbox/);
    expect(ids.length).toBeGreaterThan(1);
    const atReset = await env.fingerprint();
    expect(await freshPrint()).toBe(atReset);
    const snapshot = await env.snapshot();
    const seen = [atReset];
    for (const id of ids) {
      await env.step({ type: "click", elementId: id });
      const print = await env.fingerprint();
      expect(await env.fingerprint()).toBe(print);
      expect(await freshPrint()).toBe(print);
      seen.push(print);
    }
    // Every click toggled a checkbox: every state is a new one.
    expect(new Set(seen).size).toBe(seen.length);
    await env.restore(snapshot);
    expect(await env.fingerprint()).toBe(atReset);
    expect(await freshPrint()).toBe(atReset);
  });

  it("shows a change made to the page after the view", async () => {
    const first = await env.reset({ taskId: "click-checkboxes", seed: 4 });
    const [id] = idsWhere(first, /checkbox/);
    await env.step({ type: "click", elementId: id as string });
    const stepped = await env.fingerprint();
    await env.withPage((p) =>
      p.evaluate(`document.body.appendChild(document.createElement("p")).textContent = "x"`),
    );
    const changed = await env.fingerprint();
    expect(changed).not.toBe(stepped);
    expect(await freshPrint()).toBe(changed);
    // A step that is refused changes nothing on the page, and its fingerprint is still the changed one.
    const refused = await env.step({ type: "click", elementId: "999999" });
    expect(refused.observation.error?.code).toBe("unknown_element");
    expect(await env.fingerprint()).toBe(changed);
  });
});
