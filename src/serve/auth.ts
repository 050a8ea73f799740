import { timingSafeEqual } from "node:crypto";
import { UserError } from "../core/errors.ts";
import { clientError, SERVE_ERROR_CODES } from "./errors.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith("127.");
}

/** Binding beyond loopback needs a bearer token: a server open to the network is never unauthenticated. */
export function checkBindPolicy(host: string, token: string | undefined): void {
  if (isLoopback(host) || (token !== undefined && token.length > 0)) return;
  throw new UserError(
    "serve.token_required",
    `serve --host ${host} would accept connections from other machines without authentication; set a bearer token (--token or REHEARSAL_SERVE_TOKEN), or bind 127.0.0.1`,
  );
}

/**
 * A check of the `Authorization: Bearer TOKEN` header (constant time); without a token every request
 * passes. Throws `serve.unauthorized`.
 */
export function bearerCheck(token: string | undefined): (authorization: string | undefined) => void {
  if (!token) return () => undefined;
  const expected = Buffer.from(token);
  return (authorization) => {
    const given = Buffer.from(/^Bearer (.+)$/.exec(authorization ?? "")?.[1] ?? "");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return;
    throw clientError(
      SERVE_ERROR_CODES.unauthorized,
      "this server needs the header 'Authorization: Bearer <token>' with the token it was started with",
    );
  };
}
