import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";

/**
 * A scroll at a point: the pointer goes there first (the page sees it arrive and move), then the wheel
 * turns there, and what scrolls is the box under the point, not the window. The step sends the move and
 * the wheel in one batch (one frame instead of two); the page must not see the difference.
 */
const PAGE = `<!DOCTYPE html>
<html><head><title>Scroll box</title><script src="/core/core.js"></script></head>
<body><div id="query">Scroll the box.</div>
<div id="box" style="position:absolute;left:100px;top:100px;width:200px;height:150px;overflow:auto">
<div style="height:2000px">inner</div></div>
<div id="log" style="position:absolute;top:400px"></div>
<script>
function genProblem() {}
var log = [];
var box = document.getElementById("box");
function note(s) { log.push(s); document.getElementById("log").textContent = log.join(";"); }
box.addEventListener("mouseover", function () { note("over"); });
box.addEventListener("mousemove", function (e) { note("move " + e.clientX + "," + e.clientY); });
box.addEventListener("wheel", function (e) { note("wheel " + e.clientX + "," + e.clientY + " " + e.deltaY); }, { passive: true });
box.addEventListener("scroll", function () {
  document.getElementById("query").textContent = "boxTop=" + box.scrollTop + " windowY=" + window.scrollY;
});
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

describe("a scroll at a point", () => {
  let dir: string;
  let env: WebEnvironment;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rh-scroll-pointer-"));
    writeFileSync(join(dir, "box.html"), PAGE);
    env = await createWebEnvironment({ tasksDir: dir, observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves the pointer there, then turns the wheel there, and scrolls the box under it", async () => {
    await env.reset({ taskId: "box", seed: 0 });
    const first = await env.step({ type: "scroll", direction: "down", amount: 120, x: 150, y: 150 });
    expect(first.observation.error).toBeUndefined();
    expect(first.observation.instruction).toBe("boxTop=120 windowY=0");
    const log = () => env.withPage((p) => p.evaluate<string>("document.getElementById('log').textContent"));
    expect(await log()).toBe("over;move 150,150;wheel 150,150 120");
    // Again at another point of the box: no new arrival, a move there, the wheel there.
    const second = await env.step({ type: "scroll", direction: "down", amount: 60, x: 200, y: 180 });
    expect(second.observation.instruction).toBe("boxTop=180 windowY=0");
    expect(await log()).toBe("over;move 150,150;wheel 150,150 120;move 200,180;wheel 200,180 60");
    // A click elsewhere still lands where it aims (the pointer's position is the click's own).
    await env.step({ type: "click", x: 20, y: 20 });
    const third = await env.step({ type: "scroll", direction: "up", amount: 100, x: 150, y: 150 });
    expect(third.observation.instruction).toBe("boxTop=80 windowY=0");
    expect((await log()).split(";").slice(-3)).toEqual(["over", "move 150,150", "wheel 150,150 -100"]);
  });
});
