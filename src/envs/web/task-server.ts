import type { BigIntStats } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";
import { EnvironmentError } from "../../core/index.ts";

/** A URL prefix (starting and ending with '/') served from a directory. */
export interface Mount {
  prefix: string;
  dir: string;
}

export interface TaskServerOptions {
  mounts: ReadonlyArray<Mount>;
  /** Directory of the built-in core (core.js); any missing `.../core/<file>` falls back to it. */
  coreDir: string;
}

export interface TaskServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Requests served (any status). */
  readonly requests: number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
};

function inside(root: string, full: string): boolean {
  return full === root || full.startsWith(root + sep);
}

/**
 * The file `rel` names under `dir`, or null: never outside `dir`, neither by `..` nor by a symbolic
 * link (the real path must lie inside the directory's real path too); with its stats (the validator's).
 */
interface Found {
  path: string;
  stats: BigIntStats;
}

async function fileAt(dir: string, rel: string): Promise<Found | null> {
  const root = resolve(dir);
  const full = resolve(root, `.${sep}${rel}`);
  if (!inside(root, full)) return null;
  try {
    const realRoot = await realpath(root);
    let real = await realpath(full);
    if (!inside(realRoot, real)) return null;
    let s = await stat(real, { bigint: true });
    if (s.isDirectory()) {
      real = await realpath(join(real, "index.html"));
      if (!inside(realRoot, real)) return null;
      s = await stat(real, { bigint: true });
    }
    return s.isFile() ? { path: real, stats: s } : null;
  } catch {
    return null;
  }
}

async function locate(options: TaskServerOptions, path: string): Promise<Found | null> {
  const mounts = [...options.mounts, { prefix: "/core/", dir: options.coreDir }].sort(
    (a, b) => b.prefix.length - a.prefix.length,
  );
  for (const m of mounts) {
    if (!path.startsWith(m.prefix)) continue;
    const hit = await fileAt(m.dir, path.slice(m.prefix.length));
    if (hit) return hit;
  }
  const core = /(?:^|\/)core\/([^/]+)$/.exec(path);
  return core?.[1] ? fileAt(options.coreDir, core[1]) : null;
}

/**
 * Serves task pages on 127.0.0.1 (port 0: the OS picks), GET/HEAD only, no listing. Files carry a
 * validator and `no-cache` (the browser revalidates each use: 304 while unchanged); errors `no-store`.
 */
export async function startTaskServer(options: TaskServerOptions): Promise<TaskServer> {
  let requests = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    requests += 1;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const found = path.includes("\0") ? null : await locate(options, path);
    if (!found) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
      res.end(`not found: ${path}`);
      return;
    }
    // A validator from the file's inode, size and modification time: the browser keeps the file and asks
    // again on every use (no-cache), so a changed file is served at once, an unchanged one as 304.
    const { size, mtimeNs, ino } = found.stats;
    const etag = `"${ino.toString(36)}-${size.toString(36)}-${mtimeNs.toString(36)}"`;
    const validated = { etag, "cache-control": "no-cache" };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, validated).end();
      return;
    }
    const body = await readFile(found.path);
    res.writeHead(200, {
      "content-type": TYPES[extname(found.path).toLowerCase()] ?? "application/octet-stream",
      "content-length": body.length,
      ...validated,
    });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // No WebSockets here: a page's WebSocket to the server's own port is refused (and counted as blocked).
  server.on("upgrade", (_req, socket) => socket.destroy());
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((ok, fail) => {
    server.once("error", (e) =>
      fail(
        new EnvironmentError("env.task_server_failed", `task server could not listen: ${e.message}`, {
          cause: e,
        }),
      ),
    );
    server.listen(0, "127.0.0.1", () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    origin: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close() {
      closing ??= new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
