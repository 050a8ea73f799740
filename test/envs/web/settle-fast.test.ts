import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { idWhere } from "./helpers.ts";

/**
 * The settle's quick path (page/agent-settle.js): when nothing changed since the last quiet settle it
 * waits for neither a frame nor a macrotask, unless the page posted a task (a message) meanwhile; and
 * the caret hiding of Playwright's screenshots is not a change of the page.
 */

const PAGE = `<!DOCTYPE html>
<html><head><title>Quick</title><script src="/core/core.js"></script></head>
<body><div id="wrap"><div id="query">Watch the page.</div><div id="area">
<input id="name" type="text" aria-label="Name">
<button id="b-channel">Channel</button>
<button id="b-window">Window</button>
<div id="out">nothing yet</div>
</div></div>
<script>
function genProblem() {}
function show(s) { document.getElementById("out").textContent = s; }
var channel = new MessageChannel();
channel.port1.onmessage = function (e) { show("via " + e.data); };
document.getElementById("b-channel").addEventListener("click", function () { channel.port2.postMessage("channel"); });
window.addEventListener("message", function (e) { if (e.data === "window") show("via window"); });
document.getElementById("b-window").addEventListener("click", function () { window.postMessage("window", "*"); });
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

const RESIZE_PAGE = `<!DOCTYPE html>
<html><head><title>Resize</title><script src="/core/core.js"></script>
<style> #grow { width: 100px; } #grow:focus { width: 300px; } </style></head>
<body><div id="wrap"><div id="query">Watch the page.</div><div id="area">
<input id="grow" type="text" aria-label="Grow">
<button id="noop">Noop</button>
<div id="out">nothing yet</div>
</div></div>
<script>
function genProblem() {}
// Any notification at another width than the unfocused one (the initial notification may come late,
// on a busy machine together with the resize's).
new ResizeObserver(function (entries) {
  var width = Math.round(entries[0].contentRect.width);
  if (width !== 100) document.getElementById("out").textContent = "width " + width;
}).observe(document.getElementById("grow"));
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

const SETTLE = "window.__rhSettle.settle({ horizonMs: 1000, maxMs: 3000 })";

describe("the settle's quick path", () => {
  let dir: string;
  let env: WebEnvironment;
  let shotEnv: WebEnvironment;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rh-settle-fast-"));
    writeFileSync(join(dir, "quick.html"), PAGE);
    writeFileSync(join(dir, "resize.html"), RESIZE_PAGE);
    env = await createWebEnvironment({
      tasksDir: dir,
      observation: { screenshot: false },
      enforceMaxSteps: false,
    });
    shotEnv = await createWebEnvironment({
      tasksDir: dir,
      observation: { axtree: true, screenshot: true },
      enforceMaxSteps: false,
    });
  });
  afterAll(async () => {
    await shotEnv?.close();
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [button, expected] of [
    ["Channel", /via channel/],
    ["Window", /via window/],
  ] as const) {
    it(`a click that only posts a message (${button}) still shows what the message handler did`, async () => {
      const obs = await env.reset({ taskId: "quick", seed: 0 });
      // A focus-only click first: its settle ends quiet, so the next one may take the quick path.
      const focused = await env.step({ type: "click", elementId: idWhere(obs, /textbox "Name"/) });
      expect(focused.observation.text).toMatch(/nothing yet/);
      const r = await env.step({ type: "click", elementId: idWhere(obs, new RegExp(`button "${button}"`)) });
      expect(r.observation.text).toMatch(expected);
    });
  }

  it("a focus style that resizes an observed element: the settle waits for what the ResizeObserver did", async () => {
    const obs = await env.reset({ taskId: "resize", seed: 0 });
    // A click on a button without handlers only moves the focus: its settle ends quiet.
    const plain = await env.step({ type: "click", elementId: idWhere(obs, /button "Noop"/) });
    expect(plain.observation.text).toMatch(/nothing yet/);
    // The observer's callbacks run in rendering steps, which only a visible page gets: the page is put
    // in front first (on a busy machine a page had not rendered a single frame since its reset, not even
    // the observer's initial notification).
    const visibility = await env.withPage(async (p) => {
      await p.bringToFront();
      return p.evaluate("document.visibilityState");
    });
    expect(visibility).toBe("visible");
    // The focus and the settle in one task: the resize is observed only in the next rendering step.
    const out = await env.withPage((p) =>
      p.evaluate(
        `(async () => { document.getElementById("grow").focus(); await ${SETTLE}; return document.getElementById("out").textContent; })()`,
      ),
    );
    expect(out).toBe("width 300");
    // Such a page gets two frames per settle, even with nothing changed: with one, a busy machine
    // missed the resize in 8 of 80 settles (Chromium ran the frame's animation callbacks, the
    // observer's came with the next frame).
    const again = await env.withPage((p) => p.evaluate<{ frames: number }>(SETTLE));
    expect(again).toMatchObject({ timedOut: false, frames: 2 });
  });

  it("after a quiet settle with nothing changed, a settle waits for no frame; a DOM change makes it wait", async () => {
    const obs = await env.reset({ taskId: "quick", seed: 0 });
    await env.step({ type: "click", elementId: idWhere(obs, /textbox "Name"/) });
    const again = await env.withPage((p) => p.evaluate(SETTLE));
    expect(again).toMatchObject({ timedOut: false, frames: 0 });
    await env.withPage((p) => p.evaluate(`document.getElementById("out").style.color = "red"`));
    const changed = await env.withPage((p) => p.evaluate(SETTLE));
    expect(changed).toMatchObject({ timedOut: false });
    expect((changed as { frames: number }).frames).toBeGreaterThanOrEqual(1);
  });

  it("the caret hiding of a screenshot step does not count as a change of the page", async () => {
    const obs = await shotEnv.reset({ taskId: "quick", seed: 0 });
    const r = await shotEnv.step({ type: "click", elementId: idWhere(obs, /textbox "Name"/) });
    expect(r.observation.screenshot?.bytes?.length).toBeGreaterThan(0);
    // The step's screenshot set and restored the input's caret colour after its settle.
    const after = await shotEnv.withPage((p) => p.evaluate(SETTLE));
    expect(after).toMatchObject({ timedOut: false, frames: 0 });
  });
});
