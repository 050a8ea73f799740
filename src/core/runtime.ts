import type { Clock } from "./clock.ts";
import { createManualClock } from "./clock.ts";
import type { IdGenerator } from "./ids.ts";
import { createSequentialIds } from "./ids.ts";
import type { Logger } from "./logger.ts";
import { silentLogger } from "./logger.ts";
import type { Random } from "./random.ts";
import { createRandom } from "./random.ts";

/**
 * Everything non-deterministic, passed explicitly. Built once at the edge (CLI, bench, tests) and handed
 * down; library code never reads the wall clock or Math.random itself.
 */
export interface Runtime {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The root seed key; every random stream is derived from it by purpose. */
  readonly seed: string;
  /** A generator for `seed|...purpose` — the same purpose always gives the same stream. */
  random(...purpose: ReadonlyArray<string | number>): Random;
}

export interface RuntimeParts {
  seed?: string | number;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
}

/** A runtime from explicit parts; missing parts are deterministic (manual clock, sequential ids, silent log). */
export function createRuntime(parts: RuntimeParts = {}): Runtime {
  const seed = String(parts.seed ?? 0);
  return {
    clock: parts.clock ?? createManualClock(),
    ids: parts.ids ?? createSequentialIds(),
    logger: parts.logger ?? silentLogger,
    seed,
    random: (...purpose) => createRandom(seed, ...purpose),
  };
}

/** The same runtime with some parts replaced. */
export function withRuntime(runtime: Runtime, parts: Omit<RuntimeParts, "seed">): Runtime {
  return { ...runtime, ...parts, random: runtime.random };
}
