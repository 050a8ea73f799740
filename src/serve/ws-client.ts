import WebSocket from "ws";

export interface ServeFrame {
  type: string;
  data: Record<string, unknown>;
}

/** A WebSocket connection to `rehearsal serve` (one session), for Node clients, tests and the bench. */
export interface ServeSocket {
  readonly socket: WebSocket;
  /** Sends a text frame (an object is JSON-encoded, a string or Buffer as is) and waits for the next frame. */
  request(message: unknown): Promise<ServeFrame>;
  /** The next incoming frame (frames are queued: none is missed between awaits). */
  next(): Promise<ServeFrame>;
  /** Resolves with the close code and reason once the connection closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** Connects to `URL/ws` (`http://` or `ws://` URL); `headers` e.g. `{authorization: "Bearer T"}`. */
export async function connectServeSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<ServeSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers });
  const frames: ServeFrame[] = [];
  const waiters: Array<(f: ServeFrame) => void> = [];
  socket.on("message", (raw) => {
    const frame = JSON.parse(String(raw)) as ServeFrame;
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const next = () =>
    new Promise<ServeFrame>((resolve) => {
      const f = frames.shift();
      if (f) resolve(f);
      else waiters.push(resolve);
    });
  return {
    socket,
    next,
    closed,
    request(message) {
      socket.send(
        typeof message === "string" || Buffer.isBuffer(message) ? message : JSON.stringify(message),
      );
      return next();
    },
  };
}
