import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { idsWhere } from "./helpers.ts";

/**
 * The fingerprint of a state just observed is read with the observation (one evaluation per step,
 * see EpisodeIO.pageFingerprint) once the environment fingerprints; before, the views build no DOM
 * dump. It must be the fingerprint a fresh read of the page gives, and any change to the page after
 * that view must show in the next fingerprint.
 */

/** Counts the page's reads of Element.attributes in `window.__dumpReads` (the getter works as before). */
const COUNT_DUMP_READS = `(() => {
  const original = Object.getOwnPropertyDescriptor(Element.prototype, "attributes");
  window.__dumpReads = 0;
  Object.defineProperty(Element.prototype, "attributes", {
    configurable: true,
    get() {
      window.__dumpReads += 1;
      return original.get.call(this);
    },
  });
})()`;

describe("web environment: the fingerprint read with the view", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env?.close();
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

  it("an environment that never fingerprinted builds no DOM dump with its views; its first fingerprint is a fresh read", async () => {
    const plain = await createWebEnvironment({ observation: { screenshot: false } });
    try {
      const first = await plain.reset({ taskId: "click-checkboxes", seed: 5 });
      const ids = idsWhere(first, /checkbox/);
      expect(ids.length).toBeGreaterThan(1);
      // Only the DOM dump (agent.js domDigestSource) reads Element.attributes: count its reads.
      await plain.withPage((p) => p.evaluate(COUNT_DUMP_READS));
      const dumpReads = () => plain.withPage((p) => p.evaluate<number>("window.__dumpReads"));
      await plain.step({ type: "click", elementId: ids[0] as string });
      await plain.observeNow();
      expect(await dumpReads()).toBe(0);
      // The first fingerprint reads the page anew and equals what an environment that always
      // fingerprints reaches along the same path.
      await env.reset({ taskId: "click-checkboxes", seed: 5 });
      await env.fingerprint();
      await env.step({ type: "click", elementId: ids[0] as string });
      const print = await plain.fingerprint();
      expect(print).toBe(await env.fingerprint());
      expect(await dumpReads()).toBeGreaterThan(0);
      // From then on every view reads the dump, and the fingerprint after a step reads none: one
      // dump per step (the reads of one more dump made here, counted apart).
      const readsSinceAndOneDump = `(() => {
        const since = window.__dumpReads;
        window.__dumpReads = 0;
        window.__rh.domDigestSource();
        return [since, window.__dumpReads];
      })()`;
      for (const id of ids.slice(1)) {
        await plain.withPage((p) => p.evaluate("window.__dumpReads = 0"));
        await plain.step({ type: "click", elementId: id });
        const stepped = await plain.fingerprint();
        const [since, oneDump] = await plain.withPage((p) => p.evaluate<number[]>(readsSinceAndOneDump));
        expect(oneDump).toBeGreaterThan(0);
        expect(since).toBe(oneDump);
        await env.step({ type: "click", elementId: id });
        expect(stepped).toBe(await env.fingerprint());
        expect(await plain.fingerprint()).toBe(stepped);
      }
    } finally {
      await plain.close();
    }
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
