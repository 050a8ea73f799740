import type { Environment } from "../core/index.ts";

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The environment with one change: each `reset` and `step` first lets the event loop run. A fast
 * in-process environment (FrozenLake, chess) otherwise resolves every await as a microtask, so a
 * SIGINT/SIGTERM handler would not run until the whole command had finished.
 */
export function yieldingEnvironment(env: Environment): Environment {
  return new Proxy(env, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "step" || key === "reset")
        return async (...args: unknown[]) => {
          await yieldToEventLoop();
          return value.apply(target, args);
        };
      return value.bind(target);
    },
  });
}
