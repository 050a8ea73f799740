import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyError, FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import { UserError } from "../core/errors.ts";
import type { Environment, Runtime, TaskSuite } from "../core/index.ts";
import { bearerCheck, checkBindPolicy } from "./auth.ts";
import { clientError, type ErrorBody, errorBody, httpStatus, SERVE_ERROR_CODES } from "./errors.ts";
import { noRecorder, type ServeRecorder } from "./recording.ts";
import { registerRoutes } from "./routes.ts";
import { SessionManager } from "./sessions.ts";
import { handleWsConnection, send, WS_CLOSE } from "./ws-protocol.ts";

export interface ServeOptions {
  /** Builds one session's environment (each session gets its own). */
  createEnvironment: () => Promise<Environment>;
  /** The suite the environments play (for `/metadata` and the default task). */
  suite: TaskSuite;
  family: string;
  runtime: Runtime;
  /** Records served episodes (a run of kind `serve`); default none. */
  recorder?: ServeRecorder;
  version?: string;
  /** Default 127.0.0.1; anything else needs `token`. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  token?: string;
  maxSessions?: number;
  idleTimeoutMs?: number;
  maxMessageBytes?: number;
  /** A client that has not sent its request headers (or whole request) by then is dropped (slow-loris). */
  requestTimeoutMs?: number;
}

export const SERVE_DEFAULTS = {
  host: "127.0.0.1",
  port: 8000,
  maxSessions: 16,
  idleTimeoutMs: 300_000,
  maxMessageBytes: 1_048_576,
  requestTimeoutMs: 30_000,
} as const;

export interface ServeServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly sessions: SessionManager;
  readonly runId: string | undefined;
  /** Closes every session (episodes `aborted`), the run (complete) and the listener. Idempotent. */
  close(): Promise<void>;
}

/** Fastify's own rejections (body parsing, size, media type) as typed error bodies. */
function fastifyErrorBody(e: FastifyError): ErrorBody | undefined {
  if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE" || e.statusCode === 413)
    return errorBody(
      clientError(
        SERVE_ERROR_CODES.messageTooLarge,
        `the request body is over this server's limit: ${e.message}`,
      ),
    );
  if (
    e.code === "FST_ERR_CTP_INVALID_JSON_BODY" ||
    e.code === "FST_ERR_CTP_EMPTY_JSON_BODY" ||
    e instanceof SyntaxError
  )
    return errorBody(
      clientError(SERVE_ERROR_CODES.invalidJson, `the request body is not JSON: ${e.message.slice(0, 160)}`),
    );
  if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)
    return errorBody(
      clientError(
        SERVE_ERROR_CODES.invalidMessage,
        `${e.message.slice(0, 200)}; send a JSON body (Content-Type: application/json)`,
      ),
    );
  return undefined;
}

/**
 * Starts the environment server: HTTP routes, the `/ws` session protocol, sessions with a cap and
 * idle timeouts. Resolves once it listens.
 */
export async function startServeServer(options: ServeOptions): Promise<ServeServer> {
  const host = options.host ?? SERVE_DEFAULTS.host;
  checkBindPolicy(host, options.token);
  const maxMessageBytes = options.maxMessageBytes ?? SERVE_DEFAULTS.maxMessageBytes;
  const requestTimeoutMs = options.requestTimeoutMs ?? SERVE_DEFAULTS.requestTimeoutMs;
  const recorder = options.recorder ?? noRecorder;
  const { runtime } = options;
  const sockets = new Map<string, WebSocket>();
  const sessions = new SessionManager({
    createEnvironment: options.createEnvironment,
    recorder,
    nowMs: () => runtime.clock.nowMs(),
    maxSessions: options.maxSessions ?? SERVE_DEFAULTS.maxSessions,
    idleTimeoutMs: options.idleTimeoutMs ?? SERVE_DEFAULTS.idleTimeoutMs,
    onIdleClose: (session) => {
      const socket = sockets.get(session.id);
      if (!socket) return;
      send(socket, {
        type: "error",
        data: errorBody(
          clientError(
            SERVE_ERROR_CODES.sessionClosed,
            `session ${session.id} was idle too long and is closed; reconnect`,
          ),
        ),
      });
      socket.close(WS_CLOSE.policy, "idle timeout");
    },
  });
  const { default: fastify } = await import("fastify");
  const { default: websocket } = await import("@fastify/websocket");
  const app: FastifyInstance = fastify({
    bodyLimit: maxMessageBytes,
    logger: false,
    serverFactory: (handler) =>
      createServer(
        {
          headersTimeout: requestTimeoutMs,
          requestTimeout: requestTimeoutMs,
          connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 4))),
        },
        handler,
      ),
  }) as unknown as FastifyInstance;
  await app.register(websocket, { options: { maxPayload: maxMessageBytes * 4 + 4096 } });
  const authorize = bearerCheck(options.token);
  app.addHook("onRequest", async (req) => {
    if (req.url !== "/health") authorize(req.headers.authorization);
  });
  app.setErrorHandler((e: FastifyError, _req, reply) => {
    const body = fastifyErrorBody(e) ?? errorBody(e);
    if (body.category === "internal") runtime.logger.error("serve: request failed", { ...body });
    // An unsupported media type keeps its own status (415); the rest follow the error code.
    void reply.status(e.statusCode === 415 ? 415 : httpStatus(body)).send({ error: body });
  });
  app.setNotFoundHandler((req, reply) => {
    const body = errorBody(
      clientError(
        SERVE_ERROR_CODES.notFound,
        `no route ${req.method} ${req.url.slice(0, 100)}; see GET /metadata`,
      ),
    );
    void reply.status(404).send({ error: body });
  });
  await app.register(async (scope) => {
    scope.get("/ws", { websocket: true }, (socket: WebSocket) =>
      handleWsConnection(socket, { sessions, maxMessageBytes, sockets }),
    );
  });
  registerRoutes(app, {
    sessions,
    suite: options.suite,
    family: options.family,
    version: options.version ?? "0",
    runId: recorder.runId,
  });
  const wanted = options.port ?? SERVE_DEFAULTS.port;
  try {
    await app.listen({ host, port: wanted });
  } catch (e) {
    await sessions.closeAll("the server did not start");
    await app.close().catch(() => undefined);
    const code = (e as NodeJS.ErrnoException).code ?? "unknown";
    throw new UserError(
      "serve.listen_failed",
      `serve could not listen on ${host}:${wanted} (${code}: ${(e as Error).message}); choose another --port (0 picks a free one) or --host`,
    );
  }
  const port = (app.server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    host,
    port,
    sessions,
    runId: recorder.runId,
    close() {
      closing ??= (async () => {
        await sessions.closeAll("the server stopped");
        for (const socket of sockets.values()) socket.terminate();
        await app.close();
        recorder.close();
      })();
      return closing;
    },
  };
}
