import type { ErrorCategory } from "../core/index.ts";

/** Exit codes by error category: scripts can tell bad input from a broken environment or provider. */
export const EXIT_CODES: Record<ErrorCategory | "ok", number> = {
  ok: 0,
  internal: 1,
  user: 2,
  environment: 3,
  provider: 4,
};
