import { createServer, type Server, type Socket } from "node:net";
import type { BrowserContext } from "playwright-core";
import { EnvironmentError } from "../../core/index.ts";

/**
 * How an episode's browser context is kept off every host but the task server, without intercepting
 * its requests (Playwright's `route` sends every request, same-origin ones too, through node and turns
 * the HTTP cache off):
 * - the context's proxy is a SOCKS5 black hole in this process that refuses every connection, and
 *   only the task server's `127.0.0.1:<port>` bypasses it. `<-loopback>` removes Chromium's implicit
 *   bypass of loopback hosts, so `localhost`, other ports and IP literals go to the hole as well. The
 *   proxy holds for every page, frame, pop-up and worker of the context from its creation on, and for
 *   WebSockets (a WebSocket to the task server's own port meets a server that refuses upgrades).
 * - what was blocked is counted from the context's network events (DevTools `Network` domain, on
 *   whether or not anything intercepts): every http(s) request not to the task server, and every
 *   WebSocket (of a page or a worker). The events come after the fact: a count read just after a
 *   request of an out-of-process frame or a worker (other DevTools sessions) may trail it by what is
 *   still in flight, and a late one counts for the next episode of the context after a restart.
 */

interface BlockingProxy {
  server: string;
  bypass: string;
}

/** Connections the black hole refused (over the process's life). */
let refused = 0;
let hole: Promise<number> | null = null;

/** SOCKS5: no authentication, then every CONNECT answered "connection not allowed by ruleset". */
function refuse(socket: Socket): void {
  refused += 1;
  socket.on("error", () => {});
  socket.setTimeout(10_000, () => socket.destroy());
  let greeted = false;
  socket.on("data", (chunk) => {
    if (chunk[0] !== 5) {
      socket.destroy();
      return;
    }
    if (!greeted) {
      greeted = true;
      socket.write(Buffer.from([5, 0]));
      return;
    }
    socket.end(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
  });
}

/** The black hole's port (started on first use, on 127.0.0.1; it does not keep the process alive). */
function holePort(): Promise<number> {
  hole ??= new Promise<number>((ok, fail) => {
    const server: Server = createServer(refuse);
    server.once("error", (e) => {
      hole = null;
      const message = `the request-blocking proxy could not listen on 127.0.0.1: ${e.message}`;
      fail(
        new EnvironmentError("env.block_proxy_failed", `${message}; free a local port and retry`, {
          cause: e,
        }),
      );
    });
    server.listen(0, "127.0.0.1", () => {
      server.unref();
      const address = server.address();
      ok(typeof address === "object" && address ? address.port : 0);
    });
  });
  return hole;
}

/** Connections the black hole has refused in this process (tests: blocked traffic went there). */
export function refusedConnections(): number {
  return refused;
}

/** The proxy settings of a context that may reach `origin` (`http://127.0.0.1:<port>`) only. */
export async function blockingProxy(origin: string): Promise<BlockingProxy> {
  const port = await holePort();
  return { server: `socks5://127.0.0.1:${port}`, bypass: `<-loopback>,${new URL(origin).host}` };
}

/** Whether a request URL is counted as blocked: http(s) and not on the task server. */
function isForeignRequest(origin: string, url: string): boolean {
  return /^https?:/i.test(url) && !url.startsWith(`${origin}/`);
}

/** Calls `block(url)` for every foreign request and every WebSocket of every page of `context`. */
export function countBlockedTraffic(
  context: BrowserContext,
  origin: string,
  block: (url: string) => void,
): void {
  context.on("request", (r) => {
    const url = r.url();
    if (isForeignRequest(origin, url)) block(url);
  });
  context.on("page", (p) => p.on("websocket", (ws) => block(ws.url())));
}
