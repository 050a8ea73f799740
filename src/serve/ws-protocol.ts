import type { WebSocket } from "ws";
import { clientError, errorBody, SERVE_ERROR_CODES } from "./errors.ts";
import { WS_MESSAGE_TYPES, type WsMessage, WsMessageSchema } from "./schemas.ts";
import type { ServeSession } from "./session.ts";
import type { SessionManager } from "./sessions.ts";
import { parseWith } from "./validate.ts";

/** WebSocket close codes the server uses. */
export const WS_CLOSE = { normal: 1000, tooLarge: 1009, tryAgainLater: 1013, policy: 1008 } as const;

/** An outgoing frame: `{type, data}` as in OpenEnv (observation, state, error, plus Rehearsal's own). */
export type OutFrame = { type: string; data: unknown };

export function send(socket: WebSocket, frame: OutFrame): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

/** A frame's text as a message, or a typed error: invalid JSON, unknown type, invalid shape. */
export function parseWsMessage(text: string): WsMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw clientError(
      SERVE_ERROR_CODES.invalidJson,
      `the message is not JSON (${(e as Error).message.slice(0, 120)}); send {"type": "reset"|"step"|..., "data": ...}`,
    );
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof value !== "object" || value === null || Array.isArray(value) || typeof type !== "string")
    throw clientError(
      SERVE_ERROR_CODES.invalidMessage,
      `a message is a JSON object with a string "type" (one of ${WS_MESSAGE_TYPES.join(", ")})`,
    );
  if (!(WS_MESSAGE_TYPES as string[]).includes(type))
    throw clientError(
      SERVE_ERROR_CODES.unknownType,
      `unknown message type ${JSON.stringify(type.slice(0, 64))}; the types are ${WS_MESSAGE_TYPES.join(", ")}`,
    );
  return parseWith(WsMessageSchema, value, SERVE_ERROR_CODES.invalidMessage, `${type} message`);
}

/** Runs one message on its session and answers with the frame it produces. */
async function dispatch(session: ServeSession, message: WsMessage): Promise<OutFrame> {
  switch (message.type) {
    case "reset":
      return { type: "observation", data: await session.run(() => session.reset(message.data)) };
    case "step":
      return { type: "observation", data: await session.run(() => session.step(message.data)) };
    case "state":
      return { type: "state", data: await session.run(async () => session.state()) };
    case "snapshot":
      return { type: "snapshot", data: { snapshot: await session.run(() => session.snapshot()) } };
    case "restore":
      return { type: "observation", data: await session.run(() => session.restore(message.data.snapshot)) };
    case "fingerprint":
      return { type: "fingerprint", data: { fingerprint: await session.run(() => session.fingerprint()) } };
    case "close":
      return { type: "closed", data: { session_id: session.id } };
  }
}

export interface WsProtocolOptions {
  sessions: SessionManager;
  maxMessageBytes: number;
  /** Frames waiting for their answer beyond this close the connection (1008): a flood cannot queue unboundedly. */
  maxPending?: number;
  /** Sockets by session, so that the idle sweep can drop them. */
  sockets: Map<string, WebSocket>;
}

/**
 * One WebSocket connection = one session, opened on connect (a full server answers `capacity_reached`
 * and closes with 1013). Every frame gets exactly one answer, in order; a bad frame gets a typed error
 * frame and the connection stays open. The session closes with the socket (its episode `aborted`).
 */
export function handleWsConnection(socket: WebSocket, options: WsProtocolOptions): void {
  let session: ServeSession;
  try {
    session = options.sessions.open("ws");
  } catch (e) {
    send(socket, { type: "error", data: errorBody(e) });
    socket.close(WS_CLOSE.tryAgainLater, "capacity reached");
    return;
  }
  options.sockets.set(session.id, socket);
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;
  const maxPending = options.maxPending ?? 256;
  const answer = async (raw: Buffer, isBinary: boolean): Promise<void> => {
    try {
      if (raw.length > options.maxMessageBytes)
        throw clientError(
          SERVE_ERROR_CODES.messageTooLarge,
          `a message of ${raw.length} bytes is over this server's limit of ${options.maxMessageBytes} bytes`,
        );
      if (isBinary)
        throw clientError(
          SERVE_ERROR_CODES.invalidMessage,
          "binary frames are not accepted; send JSON text frames",
        );
      const message = parseWsMessage(raw.toString("utf8"));
      if (message.session_id !== undefined && message.session_id !== session.id)
        throw clientError(
          SERVE_ERROR_CODES.notYourSession,
          `session ${message.session_id.slice(0, 64)} is not this connection's session (${session.id}); a connection uses only its own`,
        );
      const frame = await dispatch(session, message);
      send(socket, frame);
      if (message.type === "close") {
        await options.sessions.close(session, "the client sent close");
        socket.close(WS_CLOSE.normal, "closed");
      }
    } catch (e) {
      send(socket, { type: "error", data: errorBody(e) });
    }
  };
  socket.on("message", (raw: Buffer, isBinary: boolean) => {
    pending += 1;
    if (pending > maxPending) {
      send(socket, {
        type: "error",
        data: errorBody(
          clientError(
            SERVE_ERROR_CODES.tooManyPending,
            `more than ${maxPending} messages are waiting for their answer; wait for answers before sending more`,
          ),
        ),
      });
      socket.close(WS_CLOSE.policy, "too many pending messages");
      return;
    }
    chain = chain
      .then(() => answer(raw, isBinary))
      .finally(() => {
        pending -= 1;
      });
  });
  socket.on("close", () => {
    options.sockets.delete(session.id);
    void options.sessions.close(session, "the client disconnected");
  });
  socket.on("error", () => socket.terminate());
}
