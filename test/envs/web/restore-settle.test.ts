import { describe, expect, it } from "vitest";
import { idWhere, pagesEnvironment } from "./helpers.ts";

/**
 * A restore takes the DOM changes it makes as the page's state (no frame waited when nothing is
 * pending, agent-settle.js `markRestored`), but the work a page's own restore arms is still waited
 * for: this page's restore first shows "restoring" and writes the saved text only later, in a
 * timeout, two animation frames, after a fetch, at the end of a microtask chain, or in a scroll
 * handler (the saved state is scrolled, or the live page was: "unscroll", saved unscrolled and
 * restored from a scrolled page). The restore's observation must show the saved text, in the
 * live page (no fallback to a fresh page: the reached fingerprint is the saved one).
 */
const PAGE = `<!DOCTYPE html>
<html><head><title>Restore settle</title><script src="/core/core.js"></script></head>
<body><div id="wrap"><div id="query">Pick a way.</div><div id="area">
<button id="b-timeout">timeout</button>
<button id="b-frames">frames</button>
<button id="b-fetch">fetch</button>
<button id="b-micro">micro</button>
<button id="b-scroll">scroll</button>
<button id="b-unscroll">unscroll</button>
<div id="out">start</div>
<div id="box" style="height: 60px; overflow: auto"><div style="height: 600px">tall</div></div>
</div></div>
<script>
var state = { text: "start", way: "none" };
function render() { document.getElementById("out").textContent = state.text; }
function genProblem() { state = { text: "start", way: "none" }; render(); }
var box = document.getElementById("box");
var pendingScroll = null;
box.addEventListener("scroll", function () {
  if (pendingScroll !== null) { state.text = pendingScroll; pendingScroll = null; render(); }
});
["timeout", "frames", "fetch", "micro", "scroll", "unscroll"].forEach(function (way) {
  document.getElementById("b-" + way).addEventListener("click", function () {
    state = { text: "saved by " + way, way: way };
    render();
    if (way === "scroll") box.scrollTop = 100;
  });
});
window.rehearsalSaveState = function () { return JSON.parse(JSON.stringify(state)); };
window.rehearsalRestoreState = function (saved) {
  var want = saved.text;
  state = { text: "restoring", way: saved.way };
  render();
  var done = function () { state.text = want; render(); };
  if (saved.way === "timeout") setTimeout(done, 0);
  else if (saved.way === "frames") requestAnimationFrame(function () { requestAnimationFrame(done); });
  else if (saved.way === "fetch") fetch("data.json").then(function (r) { return r.json(); }).then(done);
  else if (saved.way === "micro") {
    var p = Promise.resolve(0);
    for (var i = 0; i < 50; i++) p = p.then(function (n) { return n + 1; });
    p.then(done);
  } else if (saved.way === "scroll") { box.scrollTop = 0; pendingScroll = want; }
  else if (saved.way === "unscroll") {
    // From a scrolled page: the scroll event writes it; from an unscrolled one no event comes.
    if (box.scrollTop === 0) done();
    else { pendingScroll = want; box.scrollTop = 0; }
  }
  else done();
};
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

describe("restore: the work a page's restore arms is waited for", () => {
  const open = pagesEnvironment("rh-restore-settle-", {
    "restore.html": PAGE,
    "data.json": JSON.stringify({ word: "plum" }),
  });

  for (const way of ["timeout", "frames", "fetch", "micro", "scroll", "unscroll"]) {
    it(`${way}: the restored observation shows the saved text, restored in the live page`, async () => {
      const { env } = open;
      const obs = await env.reset({ taskId: "restore", seed: 0 });
      const saved = await env.step({ type: "click", elementId: idWhere(obs, new RegExp(`button "${way}"`)) });
      expect(saved.observation.text).toContain(`saved by ${way}`);
      const snapshot = await env.snapshot();
      const savedPrint = await env.fingerprint();
      // Elsewhere in the same page, then back.
      const other = way === "unscroll" ? "scroll" : way === "timeout" ? "frames" : "timeout";
      const elsewhere = await env.step({
        type: "click",
        elementId: idWhere(saved.observation, new RegExp(`button "${other}"`)),
      });
      expect(elsewhere.observation.text).toContain(`saved by ${other}`);
      if (other === "scroll") expect(await env.withPage((p) => p.evaluate("box.scrollTop"))).toBe(100);
      // Scroll events come in rendering steps, which a page in the back may not get on a busy machine.
      await env.withPage((p) => p.bringToFront());
      const before = env.restoreStats();
      const restored = await env.restore(snapshot);
      expect(restored.text).toContain(`saved by ${way}`);
      expect(restored.text).not.toContain("restoring");
      expect(env.restoreStats()).toEqual({ ...before, inPage: before.inPage + 1 });
      expect(await env.fingerprint()).toBe(savedPrint);
    });
  }
});
