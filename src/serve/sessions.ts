import { clientError, SERVE_ERROR_CODES } from "./errors.ts";
import { ServeSession, type SessionDeps } from "./session.ts";

export interface SessionManagerOptions extends SessionDeps {
  maxSessions: number;
  /** A session with no message for this long is closed and its environment reclaimed. */
  idleTimeoutMs: number;
  /** Called when the idle sweep closes a session (the WebSocket layer drops its socket). */
  onIdleClose?: (session: ServeSession) => void;
}

/**
 * The live sessions, at most `maxSessions` of them (one more is refused with `capacity_reached`), and
 * the idle sweep that closes sessions nobody talks to (a client killed mid-episode, a half-open socket).
 */
export class SessionManager {
  private readonly sessions = new Map<string, ServeSession>();
  private readonly timer: NodeJS.Timeout;
  private reclaimed = 0;

  constructor(private readonly options: SessionManagerOptions) {
    const every = Math.max(10, Math.min(1000, Math.floor(options.idleTimeoutMs / 4)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get max(): number {
    return this.options.maxSessions;
  }

  /** Sessions closed by the idle sweep so far. */
  get idleReclaimed(): number {
    return this.reclaimed;
  }

  open(transport: "http" | "ws"): ServeSession {
    if (this.sessions.size >= this.options.maxSessions)
      throw clientError(
        SERVE_ERROR_CODES.capacityReached,
        `the server is busy: ${this.sessions.size} of ${this.options.maxSessions} sessions are open; retry later, close an idle session, or start the server with a larger --max-sessions`,
        { active: this.sessions.size, max: this.options.maxSessions },
      );
    const session = new ServeSession(this.options, transport);
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session `id`; an unknown or closed id is a `unknown_session` error. */
  get(id: string): ServeSession {
    const session = this.sessions.get(id);
    if (!session)
      throw clientError(
        SERVE_ERROR_CODES.unknownSession,
        `no open session ${id.slice(0, 64)} (closed, timed out after ${this.options.idleTimeoutMs} ms idle, or never opened); send reset without session_id to open one`,
      );
    return session;
  }

  async close(session: ServeSession, reason: string): Promise<void> {
    this.sessions.delete(session.id);
    await session.close(reason);
  }

  async closeAll(reason: string): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.sessions.values()].map((s) => this.close(s, reason)));
  }

  /** Closes every session idle for longer than the timeout (its operation queue first drains). */
  async sweep(): Promise<void> {
    const now = this.options.nowMs();
    for (const session of [...this.sessions.values()]) {
      if (session.busy || now - session.lastActivityMs < this.options.idleTimeoutMs) continue;
      this.reclaimed += 1;
      this.options.onIdleClose?.(session);
      await this.close(session, `idle for more than ${this.options.idleTimeoutMs} ms`);
    }
  }
}
