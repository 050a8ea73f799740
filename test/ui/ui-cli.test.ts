import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.ts";
import { startUiServer } from "../../src/ui/ui-server.ts";
import { compiledBin } from "../cli/compiled-bin.ts";
import { runMain, waitFor } from "../cli/run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-ui-cli-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("rehearsal ui", () => {
  it("refuses a bad port and a store that is not there (exit 2)", async () => {
    const port = await runMain(["ui", "--store", dir, "--port", "70000"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("expected a port from 0 to 65535, got '70000'");
    const missing = await runMain(["ui", "--store", join(dir, "nothing-here")]);
    expect(missing.code, `${missing.stderr}|${missing.stdout}`).toBe(2);
    expect(missing.stderr).toContain("no database file");
  });

  it("names a port already in use (exit 3)", async () => {
    const store = join(dir, "busy");
    openSqliteStore({ dir: store }).close();
    const first = await startUiServer({ storeDir: store, port: 0 });
    try {
      const second = await runMain(["ui", "--store", store, "--port", String(first.port)]);
      expect(second.code, second.stderr).toBe(3);
      expect(second.stderr).toContain(`port ${first.port} on 127.0.0.1 is already in use`);
    } finally {
      await first.close();
    }
  });

  it("serves the store read-only on 127.0.0.1 until SIGTERM", async () => {
    const store = join(dir, "store");
    const s = openSqliteStore({ dir: store });
    s.createRun({ id: "run_<b>x</b>", kind: "run", seed: "0", config: {}, codeVersion: "t", createdAtMs: 0 });
    s.close();
    const child = spawn(process.execPath, [await compiledBin(), "ui", "--store", store, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "1" },
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.test(stdout));
    const url = stdout.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0] as string;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("run_&lt;b&gt;x&lt;/b&gt;");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect((await fetch(`${url}/runs/nope`)).status).toBe(404);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
  }, 60_000);
});
