/**
 * One error base class for the whole toolkit. Expected failures (an invalid action, a model output that
 * does not parse) are data, not errors; these classes are for failures an operator must act on.
 */
export const ERROR_CATEGORIES = ["user", "environment", "provider", "internal"] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

export interface RehearsalErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class RehearsalError extends Error {
  readonly code: string;
  readonly category: ErrorCategory;
  readonly details: Record<string, unknown>;

  constructor(code: string, category: ErrorCategory, message: string, options: RehearsalErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.category = category;
    this.details = options.details ?? {};
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      category: this.category,
      message: this.message,
      details: this.details,
    };
  }
}

/** A base class whose errors all carry one category; subclasses give only a code and a message. */
function categoryError(category: ErrorCategory) {
  return class extends RehearsalError {
    constructor(code: string, message: string, options?: RehearsalErrorOptions) {
      super(code, category, message, options);
    }
  };
}

/** Bad input from the user: config, CLI options, task files. Fix the input and retry. */
export class UserError extends categoryError("user") {}

/**
 * The environment's infrastructure failed (browser crash, engine died, timeout). Never a reward:
 * episodes that hit one are recorded as infra-failed.
 */
export class EnvironmentError extends categoryError("environment") {}

/** A model provider failed (HTTP errors after retries, timeouts, refused credentials). */
export class ProviderError extends categoryError("provider") {}

/** A broken invariant inside Rehearsal itself: a bug. */
export class InternalError extends categoryError("internal") {}

export function isRehearsalError(value: unknown): value is RehearsalError {
  return value instanceof RehearsalError;
}

/** Wraps anything thrown into a RehearsalError, keeping the original as cause. */
export function toRehearsalError(value: unknown, code = "internal.unexpected"): RehearsalError {
  if (value instanceof RehearsalError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new InternalError(code, message, { cause: value });
}
