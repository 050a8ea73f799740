import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { idWhere } from "./helpers.ts";

// Playwright's own PNG codec (pngjs), to compare pixels rather than encodings.
const { PNG } = createRequire(import.meta.url)("playwright-core/lib/utilsBundle") as {
  PNG: { sync: { read(data: Buffer): { width: number; height: number; data: Buffer } } };
};

function pixels(png: Uint8Array): { width: number; height: number; data: Buffer } {
  return PNG.sync.read(Buffer.from(png));
}

/**
 * The task page's screenshot is taken over the page's CDP session (page-capture.ts), not through
 * page.screenshot: these cases hold it to what Playwright's `page.screenshot({ caret: "hide" })`
 * shows and leaves behind.
 */
describe("web screenshots over CDP", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ enforceMaxSteps: false });
  });
  afterAll(async () => {
    await env?.close();
  });

  const playwrightShot = () => env.withPage((page) => page.screenshot({ type: "png", caret: "hide" }));

  it("a step's screenshot has the pixels of Playwright's, with the focused field's caret hidden", async () => {
    const obs = await env.reset({ taskId: "enter-text", seed: 2 });
    const field = idWhere(obs, /textbox/);
    // A solid caret colour: a caret left visible would show in our pixels and not in Playwright's.
    await env.withPage((page) =>
      page.evaluate(`document.getElementById("tt").style.setProperty("caret-color", "red", "important")`),
    );
    const r = await env.step({ type: "type", elementId: field, text: "plum" });
    const ours = pixels(r.observation.screenshot?.bytes ?? new Uint8Array());
    const theirs = pixels(await playwrightShot());
    expect([ours.width, ours.height]).toEqual([800, 600]);
    expect([theirs.width, theirs.height]).toEqual([800, 600]);
    expect(ours.data.equals(theirs.data)).toBe(true);
    // The caret colour the page set is back, priority included.
    const style = await env.withPage((page) =>
      page.evaluate(`(() => { const s = document.getElementById("tt").style;
        return [s.getPropertyValue("caret-color"), s.getPropertyPriority("caret-color")]; })()`),
    );
    expect(style).toEqual(["red", "important"]);
  });

  it("a scrolled page's screenshot has the pixels of Playwright's (what the viewport shows)", async () => {
    await env.reset({ taskId: "enter-text", seed: 3 });
    await env.withPage((page) =>
      page.evaluate(
        `document.body.insertAdjacentHTML("beforeend", '<div style="height: 3000px">tall</div>')`,
      ),
    );
    const r = await env.step({ type: "scroll", direction: "down", amount: 300 });
    const scrolled = await env.withPage((page) => page.evaluate("window.scrollY"));
    expect(scrolled).toBeGreaterThan(0);
    const ours = pixels(r.observation.screenshot?.bytes ?? new Uint8Array());
    expect(ours.data.equals(pixels(await playwrightShot()).data)).toBe(true);
  });
});
