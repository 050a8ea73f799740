import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EpisodePage, openEpisodePage } from "../../../src/envs/web/episode-page.ts";
import {
  type BrowserPool,
  CORE_DIR,
  startTaskServer,
  type TaskServer,
  WebEnvironmentConfigSchema,
} from "../../../src/envs/web/index.ts";
import { refusedConnections } from "../../../src/envs/web/request-block.ts";
import { acquireFileBrowser, releaseFileBrowser } from "../../web-browser.ts";

/**
 * Loads, in the page it runs in, everything a page may reach a host with: an image, a script, an
 * iframe, fetch, XHR and WebSocket (to `localhost`, IP literals, the listener's port on 127.0.0.1, a
 * foreign name, the task server's own port over ws), and a dedicated worker's fetch. Resolves with
 * what loaded ("ok") and what failed, once every attempt ended.
 */
const tryAll = (port: number, own: string, worker: boolean) => `(async () => {
  const L = ${port};
  const ended = (el, attr, url) => new Promise((done) => {
    el.onload = () => done(url + " ok"); el.onerror = () => done(url + " failed");
    el[attr] = url; document.body.appendChild(el);
  });
  const load = (url) => fetch(url).then(() => url + " ok", () => url + " failed");
  const xhr = (url) => new Promise((done) => {
    const x = new XMLHttpRequest(); x.open("GET", url);
    x.onload = () => done(url + " ok"); x.onerror = () => done(url + " failed"); x.send();
  });
  const ws = (url) => new Promise((done) => {
    let s;
    try { s = new WebSocket(url); } catch { done(url + " not made"); return; }
    s.onopen = () => { done(url + " ok"); s.close(); }; s.onerror = () => done(url + " failed");
    s.onclose = () => done(url + " closed");
  });
  const worker = () => new Promise((done) => {
    if (!${worker}) { done("no worker"); return; }
    const w = new Worker("/tasks/worker.js?port=" + L);
    w.onmessage = (e) => done(e.data); w.onerror = () => done("worker failed");
  });
  const frame = new Promise((done) => {
    const f = document.createElement("iframe");
    f.onload = () => { let text = "unreadable"; try { text = f.contentDocument.body.textContent; } catch {} done("frame " + text); };
    f.src = "http://localhost:" + L + "/frame"; document.body.appendChild(f);
  });
  return Promise.all([
    ended(document.createElement("img"), "src", "http://127.0.0.1:" + L + "/a.png"),
    ended(document.createElement("script"), "src", "http://127.0.0.2:" + L + "/s.js"),
    frame,
    load("http://localhost:" + L + "/fetch"),
    load("https://example.com/data.json"),
    load("/core/core.js"),
    xhr("http://[::1]:" + L + "/xhr"),
    ws("ws://127.0.0.1:" + L + "/ws"),
    ws("ws://${own}/own"),
    worker(),
  ]);
})()`;

/** Foreign requests and WebSockets one `tryAll` makes, its worker's included (the core.js fetch is the task server's). */
const blockedPerRun = (worker: boolean) => (worker ? 10 : 8);

const WORKER = `const port = new URL(location.href).searchParams.get("port");
const socket = new WebSocket("ws://127.0.0.1:" + port + "/worker-ws"); socket.onerror = () => {};
fetch("http://localhost:" + port + "/worker").then(() => postMessage("worker ok"), () => postMessage("worker failed"));`;

const PAGE = `<!DOCTYPE html><html><head><title>Block</title><script src="/core/core.js"></script></head>
<body><div id="wrap"><div id="query">Wait.</div><div id="area"></div></div>
<script>function genProblem() {} window.onload = function () { core.startEpisode(); };</script></body></html>`;

describe("foreign traffic is blocked at the context's proxy and counted from network events", () => {
  let pool: BrowserPool;
  let server: TaskServer;
  let dir: string;
  /** A real listener on every interface: nothing of the pages may reach it. */
  let listener: Server;
  let port = 0;
  let connections = 0;
  let handle: EpisodePage;
  beforeAll(async () => {
    pool = acquireFileBrowser();
    listener = createServer((s) => {
      connections += 1;
      s.destroy();
    });
    await new Promise<void>((ok) => listener.listen(0, () => ok()));
    port = (listener.address() as { port: number }).port;
    dir = mkdtempSync(join(tmpdir(), "rh-block-"));
    writeFileSync(join(dir, "block.html"), PAGE);
    writeFileSync(join(dir, "worker.js"), WORKER);
    server = await startTaskServer({ mounts: [{ prefix: "/tasks/", dir }], coreDir: CORE_DIR });
    const config = WebEnvironmentConfigSchema.parse({});
    handle = await openEpisodePage({
      pool,
      config,
      origin: server.origin,
      entryPath: "/tasks/block.html",
      seed: 1,
    });
  });
  afterAll(async () => {
    await handle?.close();
    await server?.close();
    await new Promise<void>((ok) => listener.close(() => ok()));
    rmSync(dir, { recursive: true, force: true });
    await releaseFileBrowser(pool);
  });

  it("in the main page, a pop-up and a noise tab: all blocked and counted, none reached a listener", async () => {
    const refusedBefore = refusedConnections();
    const own = new URL(server.origin).host;
    const main = await handle.evaluate<string[]>(tryAll(port, own, true));
    expect(main.filter((r) => / ok$/.test(r))).toEqual(["/core/core.js ok"]);
    expect(main).toContain("frame unreadable");
    expect(main).toContain("worker failed");
    await expect.poll(() => handle.blocked.count).toBe(blockedPerRun(true));

    // A pop-up (kept open, as the noise layer keeps its tabs) and a noise tab (about:blank, as
    // noise-tabs.ts opens them; no worker there: an opaque origin may not start one).
    handle.allowPages += 2;
    const [popup] = await Promise.all([
      handle.page.waitForEvent("popup"),
      handle.evaluate<boolean>(`(() => { window.open("/tasks/block.html", "_blank"); return true; })()`),
    ]);
    await popup.waitForLoadState("load");
    const fromPopup = (await popup.evaluate(tryAll(port, own, true))) as string[];
    const tab = await handle.context.newPage();
    await tab.setContent("<!doctype html><title>Noise</title><p>tab</p>");
    const fromTab = (await tab.evaluate(tryAll(port, own, false))) as string[];
    for (const results of [fromPopup, fromTab]) {
      expect(results.filter((r) => / ok$/.test(r) && !r.startsWith("/core/"))).toEqual([]);
    }
    await expect.poll(() => handle.blocked.count).toBe(2 * blockedPerRun(true) + blockedPerRun(false));
    expect(handle.blocked.urls).toEqual(
      expect.arrayContaining([
        `http://127.0.0.1:${port}/a.png`,
        `http://127.0.0.2:${port}/s.js`,
        `http://localhost:${port}/frame`,
        "https://example.com/data.json",
        `http://[::1]:${port}/xhr`,
        `ws://127.0.0.1:${port}/ws`,
        `ws://${own}/own`,
        `http://localhost:${port}/worker`,
      ]),
    );
    expect(handle.blocked.urls.some((u) => u.startsWith(server.origin))).toBe(false);
    expect(connections).toBe(0);
    // The connections went to the black hole instead (the task server's WebSocket is refused there).
    expect(refusedConnections()).toBeGreaterThan(refusedBefore);
    await Promise.all([popup.close(), tab.close()]);
  });
});
