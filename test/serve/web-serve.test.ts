import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSystemRuntime } from "../../src/core/system-runtime.ts";
import { BrowserPool, createWebEnvironment } from "../../src/envs/web/index.ts";
import { type ServeServer, startServeServer } from "../../src/serve/index.ts";
import { connectWs, pythonScenario } from "./serve-helpers.ts";

const skipPython = process.env.REHEARSAL_SKIP_PYTHON === "1";

describe("serving the web environment (real Chromium)", () => {
  let pool: BrowserPool;
  let server: ServeServer;
  beforeAll(async () => {
    pool = new BrowserPool({});
    const probe = await createWebEnvironment({}, { pool });
    const suite = probe.suite;
    await probe.close();
    server = await startServeServer({
      createEnvironment: () => createWebEnvironment({}, { pool }),
      suite,
      family: "web",
      runtime: createSystemRuntime({ seed: "web-serve" }),
      port: 0,
      idleTimeoutMs: 1500,
    });
  });
  afterAll(async () => {
    await server.close();
    await pool.close();
  });

  it.skipIf(skipPython)("the Python client plays a full web episode", async () => {
    expect(await pythonScenario("web", server.url)).toMatchObject({ steps: 1 });
  });

  it("reclaims browser contexts of clients that vanish or go idle: none is left", async () => {
    const gone = await connectWs(server.url);
    const idle = await connectWs(server.url);
    for (const c of [gone, idle]) {
      const r = await c.request({ type: "reset", data: { task_id: "click-button", seed: 1 } });
      expect(r.type).toBe("observation");
    }
    const browser = await pool.browser();
    expect(browser.contexts().length).toBeGreaterThanOrEqual(2);
    gone.socket.terminate();
    // The idle one is closed by the sweep (with an error frame and close code 1008).
    expect((await idle.closed).code).toBe(1008);
    await expect.poll(() => server.sessions.size, { timeout: 20_000 }).toBe(0);
    await expect.poll(() => browser.contexts().length, { timeout: 20_000 }).toBe(0);
  });
});
