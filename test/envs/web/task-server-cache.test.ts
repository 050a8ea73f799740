import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORE_DIR, startTaskServer, type TaskServer } from "../../../src/envs/web/index.ts";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(origin: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("task server caching", () => {
  let server: TaskServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rh-cache-"));
    writeFileSync(join(dir, "page.html"), "<p>one</p>");
    server = await startTaskServer({ mounts: [{ prefix: "/tasks/", dir }], coreDir: CORE_DIR });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves files with a validator and no-cache: 304 while unchanged, the new content once changed", async () => {
    const first = await get(server.origin, "/tasks/page.html");
    expect(first.status).toBe(200);
    expect(first.headers["cache-control"]).toBe("no-cache");
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await get(server.origin, "/tasks/page.html", { "if-none-match": etag });
    expect(again).toMatchObject({ status: 304, body: "" });
    expect(again.headers.etag).toBe(etag);
    writeFileSync(join(dir, "page.html"), "<p>two, longer</p>");
    const changed = await get(server.origin, "/tasks/page.html", { "if-none-match": etag });
    expect(changed).toMatchObject({ status: 200, body: "<p>two, longer</p>" });
    expect(changed.headers.etag).not.toBe(etag);
  });

  it("answers a missing file with no-store", async () => {
    const missing = await get(server.origin, "/tasks/none.html");
    expect(missing.status).toBe(404);
    expect(missing.headers["cache-control"]).toBe("no-store");
  });

  it("refuses WebSocket upgrades (a page's WebSocket to the task server fails)", async () => {
    const { port } = new URL(server.origin);
    const closed = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          "GET /tasks/page.html HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        );
      });
      let got = "";
      socket.on("data", (d) => {
        got += d.toString();
      });
      socket.on("close", () => resolve(got));
    });
    expect(closed).toBe("");
  });
});
