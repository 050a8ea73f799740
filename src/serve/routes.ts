import type { FastifyInstance } from "fastify";
import type { TaskSuite } from "../core/index.ts";
import { clientError, SERVE_ERROR_CODES } from "./errors.ts";
import {
  HttpResetBodySchema,
  HttpRestoreBodySchema,
  HttpSessionBodySchema,
  HttpStepBodySchema,
  wireJsonSchemas,
} from "./schemas.ts";
import type { ServeSession } from "./session.ts";
import type { SessionManager } from "./sessions.ts";
import { parseWith } from "./validate.ts";

export interface RoutesOptions {
  sessions: SessionManager;
  suite: TaskSuite;
  family: string;
  version: string;
  runId: string | undefined;
}

const bad = SERVE_ERROR_CODES.invalidMessage;

/** The HTTP session `id`, which must have been opened over HTTP (a WebSocket's session is its own). */
function httpSession(sessions: SessionManager, id: string): ServeSession {
  const session = sessions.get(id);
  if (session.transport !== "http")
    throw clientError(
      SERVE_ERROR_CODES.notYourSession,
      `session ${id.slice(0, 64)} belongs to a WebSocket connection; use it over that connection only`,
    );
  return session;
}

/**
 * The HTTP API (OpenEnv's `/reset`, `/step`, `/state`, `/health`, `/metadata`, `/schema`, plus
 * `/snapshot`, `/restore`, `/fingerprint`, `/close`). A reset without `session_id` opens a session;
 * every answer names it in `metadata.session_id`.
 */
export function registerRoutes(app: FastifyInstance, o: RoutesOptions): void {
  const { sessions } = o;
  app.get("/health", async () => ({
    status: "healthy",
    sessions: sessions.size,
    max_sessions: sessions.max,
  }));
  app.get("/metadata", async () => ({
    name: `rehearsal-${o.family}`,
    description: `Rehearsal's ${o.family} environment (suite ${o.suite.name}) served over the OpenEnv protocol`,
    version: o.version,
    family: o.family,
    suite: o.suite.name,
    tasks: o.suite
      .list()
      .map((t) => ({ id: t.id, instruction: t.instruction, split: t.split, tier: t.tier ?? null })),
    run_id: o.runId ?? null,
    protocol: { websocket: "/ws", extensions: ["snapshot", "restore", "fingerprint", "outcome"] },
  }));
  app.get("/schema", async () => wireJsonSchemas());
  app.post("/reset", async (req) => {
    const body = parseWith(HttpResetBodySchema, req.body ?? {}, bad, "reset body");
    const { session_id, ...data } = body;
    const session = session_id === undefined ? sessions.open("http") : httpSession(sessions, session_id);
    try {
      return await session.run(() => session.reset(data));
    } catch (e) {
      // A session opened by a reset that failed is closed again (it would hold a slot for nothing).
      if (session_id === undefined) await sessions.close(session, "its first reset failed");
      throw e;
    }
  });
  app.post("/step", async (req) => {
    const body = parseWith(HttpStepBodySchema, req.body, bad, "step body");
    const session = httpSession(sessions, body.session_id);
    return session.run(() => session.step(body.action));
  });
  const sessionId = (raw: unknown) => parseWith(HttpSessionBodySchema, raw ?? {}, bad, "request").session_id;
  app.get("/state", async (req) => {
    const session = httpSession(sessions, sessionId(req.query));
    return session.run(async () => session.state());
  });
  app.post("/state", async (req) => {
    const session = httpSession(sessions, sessionId(req.body));
    return session.run(async () => session.state());
  });
  app.post("/snapshot", async (req) => {
    const session = httpSession(sessions, sessionId(req.body));
    return { snapshot: await session.run(() => session.snapshot()) };
  });
  app.post("/restore", async (req) => {
    const body = parseWith(HttpRestoreBodySchema, req.body, bad, "restore body");
    const session = httpSession(sessions, body.session_id);
    return session.run(() => session.restore(body.snapshot));
  });
  app.post("/fingerprint", async (req) => {
    const session = httpSession(sessions, sessionId(req.body));
    return { fingerprint: await session.run(() => session.fingerprint()) };
  });
  app.post("/close", async (req) => {
    const session = httpSession(sessions, sessionId(req.body));
    await sessions.close(session, "the client sent close");
    return { closed: true, session_id: session.id };
  });
}
