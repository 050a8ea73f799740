import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, canonicalJson, type Observation } from "../../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { shareBrowserAcrossFile } from "../../web-browser.ts";

/**
 * Snapshot/restore of perturbed web episodes (regressions): a native dialog held open and a noise tab
 * in front must come back exactly — the same fingerprint, the same observation (less the error of the
 * action the last step tried) and the same continuation.
 */

const stateOf = (o: Observation): string => {
  const { screenshot, error: _transient, ...rest } = o;
  return canonicalJson(screenshot ? { ...rest, screenshot: screenshot.sha256 } : rest);
};

const PROMPT = { kind: "native_dialog", dialog: "prompt", message: "Name this workspace:", defaultValue: "" };
const TAB = { kind: "tab", title: "New Tab", text: "", focus: true };

shareBrowserAcrossFile();

describe("web environment: snapshots of perturbed episodes", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({});
  });
  afterAll(async () => {
    await env?.close();
  });

  /** Plays `before` (applying `effect` after `applyAfter` of them), snapshots, restores elsewhere, plays `after`. */
  async function roundTrip(effect: unknown, applyAfter: number, before: Action[], after: Action[]) {
    let last = await env.reset({ taskId: "enter-text", seed: 1 });
    for (let i = 0; i <= before.length; i++) {
      if (i === applyAfter) {
        expect(await env.applyPerturbation({ id: "e0", effect: effect as never })).toBeNull();
        last = await env.observeNow();
      }
      const action = before[i];
      if (action) last = (await env.step(action)).observation;
    }
    const snap = await env.snapshot();
    const print = await env.fingerprint();
    const live: string[] = [];
    for (const a of after) live.push(stateOf((await env.step(a)).observation));
    await env.reset({ taskId: "click-button", seed: 2 });
    const restored = await env.restore(JSON.parse(JSON.stringify(snap)));
    const restoredPrint = await env.fingerprint();
    const again: string[] = [];
    for (const a of after) again.push(stateOf((await env.step(a)).observation));
    return { last, restored, print, restoredPrint, live, again };
  }

  it("a native prompt held open from the start restores with the same fingerprint and observation", async () => {
    const r = await roundTrip(
      PROMPT,
      0,
      [
        { type: "click", x: 60, y: 20 },
        { type: "key", keys: "Tab" },
      ],
      [
        { type: "type", text: "hello" },
        { type: "key", keys: "Enter" },
      ],
    );
    // The last step's action was refused by the dialog: an error the restored state cannot carry.
    expect(r.last.error?.code).toBe("native_dialog_open");
    expect(r.restored.error).toBeUndefined();
    expect(stateOf(r.restored)).toBe(stateOf(r.last));
    expect(r.restoredPrint).toBe(r.print);
    expect(r.again).toEqual(r.live);
  });

  it("a noise tab in front restores in front, with its textbox still focused", async () => {
    const r = await roundTrip(
      TAB,
      1,
      [
        { type: "click", x: 60, y: 20 },
        { type: "key", keys: "Tab" },
      ],
      [
        { type: "type", text: "abc" },
        { type: "key", keys: "Control+1" },
      ],
    );
    expect(r.last.url).toBe("noise-tab:New Tab");
    expect(r.last.focused).toMatch(/textbox "Note".*focused/);
    expect(r.restored.url).toBe("noise-tab:New Tab");
    expect(r.restored.focused).toBe(r.last.focused);
    expect(stateOf(r.restored)).toBe(stateOf(r.last));
    expect(r.restoredPrint).toBe(r.print);
    expect(r.again).toEqual(r.live);
  });

  it("a fingerprint does not depend on whether a screenshot was taken", async () => {
    const plain = await createWebEnvironment({ observation: { screenshot: false } });
    try {
      await plain.reset({ taskId: "enter-text", seed: 1 });
      const before = await plain.fingerprint();
      // Playwright hides the caret through inline styles and leaves `style=""` on inputs behind.
      await plain.withPage((page) => page.screenshot({ type: "png", caret: "hide" }));
      expect(await plain.fingerprint()).toBe(before);
    } finally {
      await plain.close();
    }
  });
});
