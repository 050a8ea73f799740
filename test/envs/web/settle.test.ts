import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, resolveChromiumPath } from "../../../src/envs/web/index.ts";
import { idWhere, pagesEnvironment } from "./helpers.ts";

/**
 * The step's settle (page/agent-settle.js) waits for the work an action starts — timeouts, frames,
 * requests, microtask chains, a delayed widget, a CSS transition — so that the step's own
 * observation shows its result; and clocks, frame loops and never-firing timers do not hold it.
 */

const PAGE = `<!DOCTYPE html>
<html><head><title>Settle</title><script src="/core/core.js"></script>
<style>
  #fade { transition: opacity 300ms linear; opacity: 1; }
  #fade.out { opacity: 0.2; }
</style></head>
<body><div id="wrap"><div id="query">Watch the page.</div><div id="area">
<button id="b-timeout">Timeout</button>
<button id="b-frames">Frames</button>
<button id="b-fetch">Fetch</button>
<button id="b-xhr">Xhr</button>
<button id="b-micro">Microtasks</button>
<button id="b-chain">Chain</button>
<button id="b-fade">Fade</button>
<button id="b-string">String</button>
<div id="out">nothing yet</div>
<input id="ac" type="text" aria-label="Fruit">
<ul id="menu"></ul>
<div id="fade">Fade box</div>
<div style="height: 2000px">spacer</div>
<button id="b-far">Far</button>
</div></div>
<script>
function show(s) { document.getElementById("out").textContent = s; }
function on(id, f) { document.getElementById(id).addEventListener("click", f); }
function genProblem() {}
on("b-timeout", function () { setTimeout(function (a, b) { show("after timeout " + a + b); }, 0, "x", "y"); });
on("b-frames", function () {
  requestAnimationFrame(function () { requestAnimationFrame(function () { show("after frames"); }); });
});
on("b-fetch", function () {
  fetch("data.json").then(function (r) { return r.json(); }).then(function (d) { show("fetched " + d.word); });
});
on("b-xhr", function () {
  var x = new XMLHttpRequest();
  x.open("GET", "data.json");
  x.onload = function () { show("xhr " + JSON.parse(x.responseText).word); };
  x.send();
});
on("b-micro", function () {
  var p = Promise.resolve(0);
  for (var i = 0; i < 200; i++) p = p.then(function (n) { return n + 1; });
  p.then(function (n) { queueMicrotask(function () { show("after microtasks " + n); }); });
});
on("b-chain", function () {
  setTimeout(function () { setTimeout(function () { show("after chain"); }, 200); }, 200);
});
on("b-fade", function () {
  var el = document.getElementById("fade");
  el.addEventListener("transitionend", function () { show("faded"); }, { once: true });
  el.classList.add("out");
});
on("b-string", function () { setTimeout("show('after string ' + typeof this)", 20); });
window.addEventListener("scroll", function () { document.getElementById("b-far").textContent = "Far scrolled"; });
var fruits = ["apple", "apricot", "banana", "cherry"];
var pendingSearch = null;
document.getElementById("ac").addEventListener("input", function (e) {
  clearTimeout(pendingSearch);
  var term = e.target.value;
  pendingSearch = setTimeout(function () {
    var menu = document.getElementById("menu");
    menu.innerHTML = "";
    fruits.filter(function (f) { return term && f.indexOf(term) === 0; }).forEach(function (f) {
      var li = document.createElement("li");
      li.setAttribute("role", "option");
      li.textContent = f;
      menu.appendChild(li);
    });
  }, 300);
});
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

const BUSY_PAGE = `<!DOCTYPE html>
<html><head><title>Busy</title><script src="/core/core.js"></script>
<style>
  @keyframes spin { from { transform: rotate(0deg); } to { transform: rotate(360deg); } }
  .long { animation: spin 20s linear 1; }
  .forever { animation: spin 1s linear infinite; }
</style></head>
<body><div id="wrap"><div id="query">Busy page.</div><div id="area">
<span id="clock">0</span> <span id="frames">0</span> <span class="forever">spinner</span>
<button id="go">Go</button> <button id="long">Long</button>
<div id="out">idle</div>
</div></div>
<script>
function genProblem() {}
var ticks = 0;
setInterval(function () { ticks++; document.getElementById("clock").textContent = String(ticks); }, 50);
setTimeout(function () { document.getElementById("out").textContent = "infinity fired"; }, Infinity);
setTimeout(function () { document.getElementById("out").textContent = "huge fired"; }, 4294967296 * 10);
var n = 0;
(function loop() { n++; document.getElementById("frames").textContent = String(n % 7); requestAnimationFrame(loop); })();
document.getElementById("go").addEventListener("click", function () {
  setTimeout(function () { document.getElementById("out").textContent = "went"; }, 100);
});
document.getElementById("long").addEventListener("click", function () {
  document.getElementById("long").classList.add("long");
});
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

describe("settle after an action", () => {
  const open = pagesEnvironment("rh-settle-", {
    "settle.html": PAGE,
    "busy.html": BUSY_PAGE,
    "data.json": JSON.stringify({ word: "plum" }),
  });

  const cases: Array<[string, RegExp]> = [
    ["Timeout", /after timeout xy/],
    ["Frames", /after frames/],
    ["Fetch", /fetched plum/],
    ["Xhr", /xhr plum/],
    ["Microtasks", /after microtasks 200/],
    ["Chain", /after chain/],
    ["Fade", /faded/],
    ["String", /after string object/],
    // Clicking it scrolls it into view first: the page's scroll handler runs in the next frame.
    ["Far", /button "Far scrolled"/],
  ];
  for (const [button, expected] of cases) {
    it(`the step's own observation shows what a click on "${button}" started`, async () => {
      const obs = await open.env.reset({ taskId: "settle", seed: 0 });
      const r = await open.env.step({
        type: "click",
        elementId: idWhere(obs, new RegExp(`button "${button}"`)),
      });
      expect(r.observation.text).toMatch(expected);
      expect(r.info.settleTimedOut).toBeUndefined();
    });
  }

  it("a menu that appears 300 ms after typing is in the step's observation, and nothing changes after", async () => {
    const obs = await open.env.reset({ taskId: "settle", seed: 0 });
    const r = await open.env.step({ type: "type", elementId: idWhere(obs, /textbox "Fruit"/), text: "ap" });
    expect(r.observation.text).toMatch(/option "apple"/);
    expect(r.observation.text).toMatch(/option "apricot"/);
    expect(r.observation.text).not.toMatch(/option "banana"/);
    const right = await open.env.fingerprint();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await open.env.fingerprint()).toBe(right);
  });

  it("a page with a 50 ms clock, a frame loop, an endless animation and Infinity timers settles before the cap", async () => {
    const obs = await open.env.reset({ taskId: "busy", seed: 0 });
    const start = performance.now();
    const r = await open.env.step({ type: "click", elementId: idWhere(obs, /button "Go"/) });
    const ms = performance.now() - start;
    expect(r.observation.text).toMatch(/went/);
    expect(r.observation.text).not.toMatch(/fired/);
    expect(r.info.settleTimedOut).toBeUndefined();
    // The cap is 3000 ms: the frame loop is waited for at most the 1000 ms horizon from its start.
    expect(ms).toBeLessThan(3000);
    const again = await open.env.step({ type: "click", elementId: idWhere(obs, /button "Go"/) });
    expect(again.info.settleTimedOut).toBeUndefined();
  });

  it("a finite animation longer than the cap ends the settle at the cap, reported in the step's info", async () => {
    // A cap longer than one evaluation's limit: the settled view gets the cap on top of that limit.
    const capped = await createWebEnvironment(
      {
        tasksDir: open.dir,
        observation: { screenshot: false },
        actionTimeoutMs: 1500,
        settle: { maxMs: 2500 },
      },
      { pool: open.pool },
    );
    try {
      const obs = await capped.reset({ taskId: "busy", seed: 0 });
      const r = await capped.step({ type: "click", elementId: idWhere(obs, /button "Long"/) });
      expect(r.info.settleTimedOut).toBe(true);
      expect(r.info.settlePending).toMatchObject({ animations: 1 });
    } finally {
      await capped.close();
    }
  });
});

describe("the settle tracker composes with the MiniWoB compatibility layer in either order", () => {
  const pageDir = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    "..",
    "src",
    "envs",
    "web",
    "page",
  );
  const script = (file: string) => readFileSync(join(pageDir, file), "utf8");
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: resolveChromiumPath() });
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const order of [
    ["miniwob-compat.js", "agent-settle.js"],
    ["agent-settle.js", "miniwob-compat.js"],
  ]) {
    it(order.join(" then "), async () => {
      const context = await browser.newContext();
      try {
        for (const file of order) await context.addInitScript({ content: script(file) });
        const page = await context.newPage();
        await page.setContent(`<p id="out">start</p><script>
          var out = document.getElementById("out");
          setTimeout(function () { out.textContent = "infinity fired"; }, Infinity);
          var cleared = setTimeout(function () { out.textContent = "cleared fired"; }, 50);
          clearTimeout(cleared);
          window.ids = [typeof cleared, setTimeout.call(window, function () {}, 0) > 0];
        </script>`);
        const r = await page.evaluate(`(async () => {
          setTimeout(function (x) { document.getElementById("out").textContent = "late " + x; }, 150, "arg");
          const report = await window.__rhSettle.settle({ horizonMs: 1000, maxMs: 3000 });
          return { report, text: document.getElementById("out").textContent, ids: window.ids };
        })()`);
        expect(r).toMatchObject({ report: { timedOut: false }, text: "late arg", ids: ["number", true] });
        await page.waitForTimeout(200);
        expect(await page.textContent("#out")).toBe("late arg");
      } finally {
        await context.close();
      }
    });
  }
});
