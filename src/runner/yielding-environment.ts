import type { Environment } from "../core/index.ts";

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A step lets the event loop run once per this many steps; a reset always does. */
export const STEPS_PER_YIELD = 16;

/**
 * The environment with one change: each `reset`, and every `STEPS_PER_YIELD`-th `step`, first lets the
 * event loop run. A fast in-process environment (FrozenLake, chess) otherwise resolves every await as
 * a microtask, so a SIGINT/SIGTERM handler would not run until the whole command had finished; a turn
 * of the event loop per step would cost more CPU than a FrozenLake step itself.
 */
export function yieldingEnvironment(env: Environment): Environment {
  let sinceYield = 0;
  // One wrapper per method (not a new closure on every property read).
  const wrapped = new Map<PropertyKey, { value: unknown; wrapper: unknown }>();
  const wrap = (key: PropertyKey, value: (...args: unknown[]) => unknown) => {
    if (key === "reset") {
      return async (...args: unknown[]) => {
        sinceYield = 0;
        await yieldToEventLoop();
        return value.apply(env, args);
      };
    }
    if (key === "step") {
      return async (...args: unknown[]) => {
        if (++sinceYield >= STEPS_PER_YIELD) {
          sinceYield = 0;
          await yieldToEventLoop();
        }
        return value.apply(env, args);
      };
    }
    return value.bind(env);
  };
  return new Proxy(env, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const cached = wrapped.get(key);
      if (cached !== undefined && cached.value === value) return cached.wrapper;
      const wrapper = wrap(key, value as (...args: unknown[]) => unknown);
      wrapped.set(key, { value, wrapper });
      return wrapper;
    },
  });
}
