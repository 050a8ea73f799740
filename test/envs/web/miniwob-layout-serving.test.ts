import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWebEnvironment,
  startTaskServer,
  type TaskServer,
  type WebEnvironment,
} from "../../../src/envs/web/index.ts";
import { CORE_DIR } from "../../../src/envs/web/suite.ts";
import { FIXTURE_MINIWOB_LAYOUT } from "./miniwob-layout-helpers.ts";

/** GET with the path sent as written (no client-side `..` normalisation): status and body. */
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(origin);
  return new Promise((ok, fail) => {
    const req = request({ host: url.hostname, port: url.port, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("the task server stays inside its root", () => {
  let tmp: string;
  let server: TaskServer;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "rh-root-"));
    const root = join(tmp, "root");
    mkdirSync(join(root, "miniwob"), { recursive: true });
    mkdirSync(join(root, "core"));
    mkdirSync(join(tmp, "outside"));
    writeFileSync(join(root, "miniwob", "page.html"), "<p>page</p>");
    writeFileSync(join(root, "core", "core.js"), "/* the folder's own core */");
    writeFileSync(join(tmp, "secret.txt"), "SECRET");
    writeFileSync(join(tmp, "outside", "index.html"), "SECRET DIR");
    symlinkSync(join(tmp, "secret.txt"), join(root, "miniwob", "link.txt"));
    symlinkSync(join(tmp, "outside"), join(root, "miniwob", "linkdir"));
    writeFileSync(join(root, "miniwob", "inner.txt"), "inner");
    symlinkSync(join(root, "miniwob", "inner.txt"), join(root, "miniwob", "inner-link.txt"));
    server = await startTaskServer({ mounts: [{ prefix: "/suites/x/", dir: root }], coreDir: CORE_DIR });
  });
  afterAll(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 and serves the root's pages and the folder's own core.js", async () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await rawGet(server.origin, "/suites/x/miniwob/page.html")).toMatchObject({ status: 200 });
    expect((await rawGet(server.origin, "/suites/x/core/core.js")).body).toContain("the folder's own core");
    // A core file the folder lacks falls back to the built-in one.
    expect((await rawGet(server.origin, "/suites/x/miniwob/core/core.js")).body).toContain(
      "Rehearsal task core",
    );
  });

  it("refuses .. escapes, plain and encoded", async () => {
    for (const path of [
      "/suites/x/../../secret.txt",
      "/suites/x/miniwob/../../secret.txt",
      "/suites/x/..%2F..%2Fsecret.txt",
      "/suites/x/miniwob/%2e%2e/%2e%2e/secret.txt",
    ]) {
      const r = await rawGet(server.origin, path);
      expect(r.status, path).toBe(404);
      expect(r.body, path).not.toContain("SECRET");
    }
  });

  it("refuses symbolic links that lead outside the root, follows those that stay inside", async () => {
    for (const path of [
      "/suites/x/miniwob/link.txt",
      "/suites/x/miniwob/linkdir/",
      "/suites/x/miniwob/linkdir/index.html",
    ]) {
      const r = await rawGet(server.origin, path);
      expect(r.status, path).toBe(404);
      expect(r.body, path).not.toContain("SECRET");
    }
    expect(await rawGet(server.origin, "/suites/x/miniwob/inner-link.txt")).toMatchObject({
      status: 200,
      body: "inner",
    });
  });
});

describe("a MiniWoB++ folder without core/core.js uses the project's core", () => {
  let tmp: string;
  let env: WebEnvironment;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "rh-own-core-"));
    cpSync(join(FIXTURE_MINIWOB_LAYOUT, "common"), join(tmp, "common"), { recursive: true });
    mkdirSync(join(tmp, "core"));
    cpSync(join(FIXTURE_MINIWOB_LAYOUT, "core", "core.css"), join(tmp, "core", "core.css"));
    mkdirSync(join(tmp, "miniwob"));
    writeFileSync(
      join(tmp, "miniwob", "globals.html"),
      `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Globals</title>
<link rel="stylesheet" href="../core/core.css">
<script src="../core/core.js"></script>
<script src="../common/ui_utils.js"></script>
<script>
var fired = {};
var genProblem = function () {
  var area = ui_utils.area();
  fired = {};
  var a = setTimeout(function () { fired.infinity = true; }, Infinity);
  setTimeout(function () { fired.huge = true; }, Math.pow(2, 40));
  setInterval(function () { fired.interval = true; }, Infinity);
  setTimeout(function () { fired.zero = true; });
  var d = setTimeout(function () { fired.cleared = true; }, 5);
  clearTimeout(d);
  setTimeout(function (x, y) { fired.args = x + y; }, 1, 2, 3);
  var b = ui_utils.el(area, "button", { text: "Check" });
  b.addEventListener("click", function () {
    var ok = fired.zero === true && fired.args === 5 && !fired.infinity && !fired.huge && !fired.interval &&
      !fired.cleared && typeof a === "number";
    core.endEpisode(ok ? 1 : -1, false, JSON.stringify(fired));
  });
  document.getElementById("query").textContent =
    "mode=" + WOB_DATA_MODE + " qs=" + typeof core.QueryString + " set=" + typeof core.setDataMode +
    " sample=" + typeof core.sample + " getOpt=" + core.getOpt(core.QueryString, "any", "no");
};
window.onload = function () { core.startEpisode(); };
</script></head><body><div id="wrap"><div id="query"></div><div id="area"></div></div></body></html>`,
    );
    env = await createWebEnvironment({ tasksDir: join(tmp, "miniwob"), observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("has the globals MiniWoB pages read, and timers too long for a browser never fire", async () => {
    const obs = await env.reset({ taskId: "globals", seed: 0 });
    expect(obs.instruction).toBe("mode=default qs=object set=function sample=function getOpt=no");
    await env.step({ type: "wait", ms: 300 });
    const button = /\[(\d+)\] button "Check"/.exec(obs.axtree ?? "")?.[1] as string;
    const r = await env.step({ type: "click", elementId: button });
    expect(r.terminated).toBe(true);
    const v = await env.evaluate();
    expect(v.reason).toBe(JSON.stringify({ zero: true, args: 5 }));
    expect(v.reward).toBe(1);
  });
});
