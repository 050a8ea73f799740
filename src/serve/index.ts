export { SERVE_DEFAULTS, type ServeOptions, type ServeServer, startServeServer } from "./app.ts";
export { checkBindPolicy, isLoopback } from "./auth.ts";
export { type ErrorBody, SERVE_ERROR_CODES, ServeError } from "./errors.ts";
export { createStoreRecorder, noRecorder, SERVE_RUN_KIND, type ServeRecorder } from "./recording.ts";
export * from "./schemas.ts";
export { ServeSession } from "./session.ts";
export { SessionManager } from "./sessions.ts";
export { connectServeSocket, type ServeFrame, type ServeSocket } from "./ws-client.ts";
