import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { ProviderError } from "../core/errors.ts";
import { retryAfterMs } from "./retry.ts";

/** What went wrong with one HTTP attempt, and whether trying again may help. */
export interface AttemptFailure {
  kind: "http" | "timeout" | "unreachable" | "aborted" | "bad_response";
  status?: number;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  cause: unknown;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

export function classifyFailure(error: unknown, nowMs: number): AttemptFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof APIUserAbortError) return { kind: "aborted", message, retryable: false, cause: error };
  if (error instanceof APIConnectionTimeoutError)
    return { kind: "timeout", message, retryable: true, cause: error };
  if (error instanceof APIConnectionError)
    return { kind: "unreachable", message: causeMessage(error), retryable: true, cause: error };
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const wait = retryAfterMs(error.headers, nowMs);
    return {
      kind: "http",
      status,
      message,
      retryable: RETRYABLE_STATUS.has(status) || status >= 500,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
      cause: error,
    };
  }
  if (error instanceof ProviderError)
    return { kind: "bad_response", message, retryable: false, cause: error };
  return { kind: "unreachable", message, retryable: true, cause: error };
}

function causeMessage(error: Error): string {
  const cause = error.cause;
  const inner = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause : cause) : undefined;
  return inner ? `${error.message} (${inner.message})` : error.message;
}

/** A 400 whose message says the server does not take `n` > 1. */
export function isNUnsupported(failure: AttemptFailure): boolean {
  if (failure.kind !== "http" || (failure.status !== 400 && failure.status !== 422)) return false;
  return /(\bn\b|["'`]n["'`]|multiple choices|number of (choices|completions))/i.test(failure.message);
}

function httpFix(status: number, model: string): string {
  if (status === 401 || status === 403)
    return "check the key: set REHEARSAL_LLM_API_KEY (or OPENAI_API_KEY) to one this server accepts";
  if (status === 404)
    return `check that the base URL is the API root (usually ending in /v1) and that model '${model}' is served (REHEARSAL_LLM_MODEL); with a replay server, record the missing fixture`;
  if (status === 429)
    return "the server is rate limiting: lower REHEARSAL_LLM_CONCURRENCY or raise REHEARSAL_LLM_MAX_RETRIES";
  if (status >= 500) return "the server failed: check its logs (overloaded, out of memory, model not loaded)";
  return "the server rejected the request: check the model accepts this input (images need a vision model) and the maxTokens/temperature settings";
}

/** The ProviderError for a request that failed for good. */
export function toProviderError(
  failure: AttemptFailure,
  context: { baseUrl: string; model: string; attempts: number; timeoutMs: number },
): ProviderError {
  const where = `LLM request to ${context.baseUrl} (model ${context.model})`;
  const tries = `after ${context.attempts} attempt${context.attempts === 1 ? "" : "s"}`;
  const details = { baseUrl: context.baseUrl, model: context.model, attempts: context.attempts };
  switch (failure.kind) {
    case "http": {
      const status = failure.status ?? 0;
      return new ProviderError(
        `provider.http_${status}`,
        `${where} failed with HTTP ${status} ${tries}: ${failure.message}. Fix: ${httpFix(status, context.model)}`,
        { cause: failure.cause, details: { ...details, status } },
      );
    }
    case "timeout":
      return new ProviderError(
        "provider.timeout",
        `${where} timed out after ${context.timeoutMs} ms ${tries}. Fix: check the server is up and not overloaded, or raise REHEARSAL_LLM_TIMEOUT_MS`,
        { cause: failure.cause, details: { ...details, timeoutMs: context.timeoutMs } },
      );
    case "unreachable":
      return new ProviderError(
        "provider.unreachable",
        `${where} could not connect ${tries}: ${failure.message}. Fix: start the server, or set REHEARSAL_LLM_BASE_URL to where it listens`,
        { cause: failure.cause, details },
      );
    case "aborted":
      return new ProviderError("provider.aborted", `${where} was aborted by the caller`, {
        cause: failure.cause,
        details,
      });
    case "bad_response":
      return failure.cause instanceof ProviderError
        ? failure.cause
        : new ProviderError("provider.bad_response", `${where}: ${failure.message}`, {
            cause: failure.cause,
            details,
          });
  }
}
