/**
 * An asynchronous method that carries its synchronous twin as `method.sync`: the same result and the
 * same errors (thrown instead of rejected), without a promise. A caller on a hot path (the rollout
 * loop) calls the twin where the method it holds has one. The twin travels with the function, not
 * beside it on the object, so a wrapper that replaces the method (a proxy, a spread with its own
 * `step`) has none and is never skipped.
 */
export type WithSyncTwin<A extends unknown[], R> = ((...args: A) => Promise<R>) & {
  readonly sync?: (...args: A) => R;
};

/** An async function doing what `sync` does (a throw becomes a rejection), with `sync` as its twin. */
export function withSyncTwin<A extends unknown[], R>(sync: (...args: A) => R): WithSyncTwin<A, R> {
  const method = async (...args: A): Promise<R> => sync(...args);
  return Object.assign(method, { sync });
}

/** The synchronous twin of `method`, if it has one. */
export function syncTwinOf<A extends unknown[], R>(
  method: (...args: A) => Promise<R>,
): ((...args: A) => R) | undefined {
  return (method as WithSyncTwin<A, R>).sync;
}
