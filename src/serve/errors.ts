import { type ErrorCategory, isRehearsalError, RehearsalError } from "../core/errors.ts";

/**
 * The typed errors the environment server answers with (a WebSocket `error` frame or an HTTP error
 * body). Every code names what went wrong; the category says whose fault it is: `user` (the client sent
 * something wrong), `environment` (the environment's infrastructure failed: never a reward),
 * `internal` (a bug in the server).
 */
export const SERVE_ERROR_CODES = {
  invalidJson: "serve.invalid_json",
  unknownType: "serve.unknown_type",
  invalidMessage: "serve.invalid_message",
  invalidAction: "serve.invalid_action",
  messageTooLarge: "serve.message_too_large",
  tooManyPending: "serve.too_many_pending",
  capacityReached: "serve.capacity_reached",
  unknownSession: "serve.unknown_session",
  notYourSession: "serve.not_your_session",
  sessionClosed: "serve.session_closed",
  notReset: "serve.not_reset",
  unknownTask: "serve.unknown_task",
  snapshotUnsupported: "serve.snapshot_unsupported",
  unauthorized: "serve.unauthorized",
  notFound: "serve.not_found",
  environmentFailed: "serve.environment_failed",
  internal: "serve.internal",
} as const;

/** HTTP status of each code (an unlisted code is a 500). */
const HTTP_STATUS: Record<string, number> = {
  [SERVE_ERROR_CODES.invalidJson]: 400,
  [SERVE_ERROR_CODES.unknownType]: 400,
  [SERVE_ERROR_CODES.invalidMessage]: 422,
  [SERVE_ERROR_CODES.invalidAction]: 422,
  [SERVE_ERROR_CODES.messageTooLarge]: 413,
  [SERVE_ERROR_CODES.capacityReached]: 503,
  [SERVE_ERROR_CODES.unknownSession]: 404,
  [SERVE_ERROR_CODES.notYourSession]: 403,
  [SERVE_ERROR_CODES.sessionClosed]: 409,
  [SERVE_ERROR_CODES.notReset]: 409,
  [SERVE_ERROR_CODES.unknownTask]: 422,
  [SERVE_ERROR_CODES.snapshotUnsupported]: 409,
  [SERVE_ERROR_CODES.unauthorized]: 401,
  [SERVE_ERROR_CODES.notFound]: 404,
  [SERVE_ERROR_CODES.environmentFailed]: 502,
};

/** An error the server reports to its client; the server itself keeps running. */
export class ServeError extends RehearsalError {
  constructor(code: string, category: ErrorCategory, message: string, details: Record<string, unknown> = {}) {
    super(code, category, message, { details });
  }
}

/** A client mistake (category `user`). */
export function clientError(
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): ServeError {
  return new ServeError(code, "user", message, details);
}

/** What goes on the wire for an error: code, category, message, and `infra` for environment failures. */
export interface ErrorBody {
  code: string;
  category: ErrorCategory;
  message: string;
  /** True when the environment's infrastructure failed (the episode has no reward). */
  infra: boolean;
  details?: Record<string, unknown>;
}

/** Any thrown value as the wire's error body (an unknown throw is an internal error). */
export function errorBody(e: unknown): ErrorBody {
  if (isRehearsalError(e)) {
    const body: ErrorBody = {
      code: e.code,
      category: e.category,
      message: e.message,
      infra: e.category === "environment",
    };
    if (Object.keys(e.details).length > 0) body.details = e.details;
    return body;
  }
  return {
    code: SERVE_ERROR_CODES.internal,
    category: "internal",
    message: e instanceof Error ? e.message : String(e),
    infra: false,
  };
}

export function httpStatus(body: ErrorBody): number {
  const known = HTTP_STATUS[body.code];
  if (known !== undefined) return known;
  if (body.category === "environment") return 502;
  if (body.category === "user") return 400;
  return 500;
}
