import { randomBytes } from "node:crypto";
import type { Clock } from "./clock.ts";
import { createTimeOrderedIds } from "./ids.ts";
import type { Logger } from "./logger.ts";
import { createRandom } from "./random.ts";
import { createRuntime, type Runtime } from "./runtime.ts";

/**
 * The edge's runtime: the real clock and time-ordered ids. This is the one module allowed to read the
 * wall clock and OS entropy (enforced by scripts/check-imports.mjs); everything else gets it injected.
 */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
};

export function createSystemRuntime(options: { seed?: string | number; logger?: Logger } = {}): Runtime {
  const idRandom = createRandom("ids", randomBytes(16).toString("hex"));
  return createRuntime({
    seed: options.seed ?? 0,
    clock: systemClock,
    ids: createTimeOrderedIds(systemClock.nowMs, idRandom),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
