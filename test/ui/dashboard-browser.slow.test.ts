import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_FLAGS, resolveChromiumPath } from "../../src/envs/web/config.ts";
import { startUiServer, type UiServer } from "../../src/ui/ui-server.ts";
import { json, runMain } from "../cli/run-cli.ts";

/** Screenshots of every page land here (outside the repository; REHEARSAL_UI_SCREENSHOTS overrides). */
const SHOTS = process.env.REHEARSAL_UI_SCREENSHOTS ?? join(tmpdir(), "rehearsal-ui-screenshots");
const dir = mkdtempSync(join(tmpdir(), "rehearsal-ui-browser-"));
const store = join(dir, "store");
const sklDir = join(dir, "skl");

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const r = await runMain(["--json", ...args, ...(args.includes("--out-dir") ? [] : ["--store", store])]);
  if (r.code !== 0) throw new Error(`rehearsal ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return json(r);
}

describe("rehearsal ui in a real browser", () => {
  let server: UiServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const runs: Record<string, string> = {};

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const fl = ["--env", "frozenlake", "--tasks", "4x4", "--policy", "random", "--seed", "1"];
    runs.run = String((await cli(["run", ...fl, "--episodes", "3"])).runId);
    runs.search = String((await cli(["search", ...fl])).runId);
    runs.eval = String((await cli(["eval", ...fl, "--rollouts", "3", "--k", "1,2"])).runId);
    runs.web = String(
      (await cli(["run", "--env", "web", "--tasks", "click-button", "--policy", "oracle", "--episodes", "1"]))
        .runId,
    );
    await cli([
      "skl",
      "frozenlake",
      "--slip",
      "asymmetric",
      "--train-maps",
      "2",
      "--test-maps",
      "2",
      "--iterations",
      "2",
      "--out-dir",
      sklDir,
      "--store",
      store,
    ]);
    await cli([
      "worldbook",
      "build",
      "--runs",
      runs.run,
      "--out",
      join(store, "worldbook"),
      "--split",
      "1,0,0",
    ]);
    server = await startUiServer({ storeDir: store, port: 0, sklDirs: [sklDir] });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: [...CHROMIUM_FLAGS] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  it("lists the runs and walks run → task → trajectory → step", async () => {
    await page.goto(server.url);
    expect(await page.locator("#runs tbody tr").count()).toBe(Object.keys(runs).length + 1); // + the skl run
    await shot("01-runs");
    await page.click(`a.run-link:text-is("${runs.run}")`);
    expect(await page.textContent("h1")).toContain(runs.run);
    expect(await page.textContent("#tasks")).toContain("4x4");
    await shot("02-run");
    await page.click("a.task-link");
    expect(await page.locator("#trajectories tbody tr").count()).toBe(3);
    await shot("03-task");
    await page.click("a.trajectory-link >> nth=0");
    expect(await page.textContent(".observation")).toContain("Position (row, col)");
    await page.click("#steps a.step-link >> nth=0");
    expect(await page.textContent(".pager")).toContain("step 1 of");
    await page.keyboard.press("ArrowLeft");
    await page.waitForURL(/step=0$/);
    await shot("04-trajectory");
  });

  it("shows a web trajectory's screenshot and accessibility text", async () => {
    await page.goto(`${server.url}/runs/${runs.web}`);
    await page.click("a.task-link");
    await page.click("a.trajectory-link");
    expect(await page.textContent(".observation")).toContain('button "Delete"');
    const width = await page.locator("img.screenshot").evaluate((img: HTMLImageElement) => img.naturalWidth);
    expect(width).toBeGreaterThan(100);
    expect(await page.textContent("#step-facts")).toContain('"click"');
    await shot("05-web-trajectory");
  });

  it("draws the search tree, colours leaves by success and shows a clicked leaf's path", async () => {
    await page.goto(`${server.url}/runs/${runs.search}`);
    await page.click("#trees a.tree-link");
    const leaves = await page.locator("svg a.node-leaf").count();
    expect(leaves).toBeGreaterThan(10);
    expect(await page.locator('svg a[data-colour="success"]').count()).toBeGreaterThan(0);
    expect(await page.locator('svg a[data-colour="failure"]').count()).toBeGreaterThan(0);
    await shot("06-tree");
    await page.click('svg a[data-colour="success"] >> nth=0');
    expect(await page.textContent("h1")).toContain("Node");
    expect(await page.textContent(".cards")).toContain("success");
    expect(await page.locator("#path tbody tr").count()).toBeGreaterThan(0);
    expect(await page.textContent("#steps")).toContain("move");
    await shot("07-leaf");
  });

  it("shows evaluation pass@k, robustness, SKL curves and knowledge, and worldbook rules with provenance", async () => {
    await page.goto(`${server.url}/runs/${runs.eval}`);
    expect(await page.textContent("#pass")).toContain("pass@2");
    expect(await page.textContent("#pass")).toContain("train");
    expect(await page.textContent("#tasks")).toMatch(/\d+\.\d%/); // success tallied from the trajectories
    await shot("08-eval");
    await page.goto(`${server.url}/robustness`);
    expect(await page.textContent("main")).toContain("No robustness evaluation");
    await page.goto(`${server.url}/knowledge`);
    expect(await page.locator("figure.chart svg polyline").count()).toBeGreaterThan(0);
    expect(await page.locator("#knowledge-tables tbody tr").count()).toBeGreaterThan(0);
    await shot("09-knowledge");
    await page.click("a.knowledge-link >> nth=-1");
    expect(await page.textContent("h1")).toContain("Knowledge table");
    await shot("10-knowledge-table");
    await page.goto(`${server.url}/worldbooks`);
    await page.click("a.worldbook-link");
    expect(await page.locator("#rules tbody tr").count()).toBeGreaterThan(0);
    await shot("11-worldbook");
    await page.click("a.rule-link >> nth=0");
    expect(await page.textContent("#evidence")).toContain(`run:${runs.run}`);
    await shot("12-rule");
    expect(problems).toEqual([]);
  });
});
