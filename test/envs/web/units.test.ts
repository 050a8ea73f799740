import { readFileSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILTIN_TASKS_DIR,
  CHROMIUM_FLAGS,
  CORE_DIR,
  PLAYWRIGHT_DISABLED_FEATURES,
  prefixKeys,
  resolveChromiumPath,
  startTaskServer,
  type TaskServer,
  toPlaywrightKeys,
  WebEnvironmentConfigSchema,
} from "../../../src/envs/web/index.ts";
import { boundText } from "../../../src/envs/web/observe.ts";
import { FIXTURE_PAGES } from "./helpers.ts";

function get(origin: string, path: string, method = "GET"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("key names", () => {
  it("maps action key notation to Playwright names", () => {
    expect(toPlaywrightKeys("ctrl+a")).toBe("Control+a");
    expect(toPlaywrightKeys("Escape")).toBe("Escape");
    expect(toPlaywrightKeys("esc")).toBe("Escape");
    expect(toPlaywrightKeys("shift+Tab")).toBe("Shift+Tab");
    expect(toPlaywrightKeys("cmd+shift+z")).toBe("Meta+Shift+z");
    expect(toPlaywrightKeys("up")).toBe("ArrowUp");
    expect(toPlaywrightKeys("f5")).toBe("F5");
    expect(toPlaywrightKeys("space")).toBe("Space");
    expect(toPlaywrightKeys("+")).toBe("+");
  });
});

describe("task server", () => {
  let server: TaskServer;
  beforeAll(async () => {
    server = await startTaskServer({
      mounts: [
        { prefix: "/tasks/", dir: BUILTIN_TASKS_DIR },
        { prefix: "/suites/pages/", dir: FIXTURE_PAGES },
      ],
      coreDir: CORE_DIR,
    });
  });
  afterAll(async () => {
    await server.close();
    await server.close();
  });

  it("serves task pages, core.js and a tasks directory's subfolders on 127.0.0.1", async () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await get(server.origin, "/core/core.js")).body).toContain("Math.seedrandom");
    expect((await get(server.origin, "/tasks/click-button/index.html")).status).toBe(200);
    expect((await get(server.origin, "/tasks/click-button/")).body).toContain("genProblem");
    expect((await get(server.origin, "/suites/pages/common/helper.js")).body).toContain("helperLabel");
    // MiniWoB's ../core/core.js falls back to the built-in core.
    expect((await get(server.origin, "/suites/core/core.js")).body).toContain("startEpisodeReal");
  });

  it("refuses paths outside its directories and methods other than GET/HEAD", async () => {
    expect((await get(server.origin, "/tasks/../../../package.json")).status).toBe(404);
    expect((await get(server.origin, "/tasks/%2e%2e/%2e%2e/%2e%2e/package.json")).status).toBe(404);
    expect((await get(server.origin, "/tasks/click-button/%00")).status).toBe(404);
    expect((await get(server.origin, "/nothing-here")).status).toBe(404);
    expect((await get(server.origin, "/tasks/click-button/index.html", "POST")).status).toBe(405);
    expect(server.requests).toBeGreaterThan(5);
  });
});

describe("small pieces", () => {
  it("prefix keys are chained: a prefix's keys start the longer prefix's keys", () => {
    const a = { type: "click", x: 1, y: 2 } as const;
    const b = { type: "key", keys: "Tab" } as const;
    const short = prefixKeys("t", 1, [a]);
    const long = prefixKeys("t", 1, [a, b]);
    expect(long.slice(0, 2)).toEqual(short);
    expect(prefixKeys("t", 2, [a])[1]).not.toBe(short[1]);
    expect(prefixKeys("t", 1, [b, a])[2]).not.toBe(long[2]);
  });

  it("bounds the axtree text on a line boundary", () => {
    const text = Array.from({ length: 100 }, (_, i) => `[${i}] button "B${i}"`).join("\n");
    const cut = boundText(text, 500);
    expect(cut.length).toBeLessThanOrEqual(500);
    expect(cut).toMatch(/… \(\d+ more lines cut\)$/);
    expect(boundText("short", 500)).toBe("short");
  });

  it("the Chromium path: explicit, then $REHEARSAL_CHROMIUM, then /usr/bin/chromium", () => {
    const saved = process.env.REHEARSAL_CHROMIUM;
    try {
      delete process.env.REHEARSAL_CHROMIUM;
      expect(resolveChromiumPath()).toBe("/usr/bin/chromium");
      process.env.REHEARSAL_CHROMIUM = "/opt/chrome/chrome";
      expect(resolveChromiumPath()).toBe("/opt/chrome/chrome");
      expect(resolveChromiumPath("/x/chromium")).toBe("/x/chromium");
    } finally {
      if (saved === undefined) delete process.env.REHEARSAL_CHROMIUM;
      else process.env.REHEARSAL_CHROMIUM = saved;
    }
  });

  it("our --disable-features repeats playwright-core's own list (Chromium keeps only the last switch)", () => {
    const pkg = createRequire(import.meta.url).resolve("playwright-core/package.json");
    const bundle = readFileSync(join(dirname(pkg), "lib", "coreBundle.js"), "utf8");
    const block = /disabledFeatures = \[([\s\S]*?)\]/.exec(bundle)?.[1];
    expect(block, "playwright-core changed its bundle: update PLAYWRIGHT_DISABLED_FEATURES").toBeDefined();
    const theirs = [...(block ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect([...PLAYWRIGHT_DISABLED_FEATURES]).toEqual(theirs);
    expect(CHROMIUM_FLAGS.filter((f) => f.startsWith("--disable-features=")).length).toBe(1);
  });

  it("config defaults and strictness", () => {
    const c = WebEnvironmentConfigSchema.parse({});
    expect(c.viewport).toEqual({ width: 800, height: 600 });
    expect(c.observation).toEqual({ axtree: true, screenshot: true, maxAxtreeChars: 20_000 });
    expect(c).toMatchObject({ locale: "en-US", timezoneId: "UTC", headless: true });
    expect(WebEnvironmentConfigSchema.safeParse({ viewprot: {} }).success).toBe(false);
  });
});
