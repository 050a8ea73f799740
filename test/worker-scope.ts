/**
 * Per-worker set-up for the test files of a non-isolated project (`isolate: false`: one worker runs
 * many files in one module graph). The project's environment (`test/worker-environment.ts`) opens the
 * scope when the worker starts and runs its teardowns when the worker stops (after its last file,
 * before Vitest ends the process). A helper that keeps something for the worker (a browser) registers
 * its teardown here; where no scope is open (an isolated project) it keeps its per-file behaviour.
 *
 * The environment module is loaded apart from the test files' module graph, so the scope lives on
 * `globalThis` under a registered symbol, not in a module variable.
 */

type Teardown = () => Promise<void> | void;

const KEY = Symbol.for("rehearsal.test.worker-scope");

interface Scope {
  readonly teardowns: Teardown[];
}

function current(): Scope | undefined {
  return (globalThis as Record<symbol, Scope | undefined>)[KEY];
}

/** Opens the worker's scope (called by the environment's set-up). */
export function openWorkerScope(): void {
  (globalThis as Record<symbol, Scope | undefined>)[KEY] = { teardowns: [] };
}

/**
 * Runs the registered teardowns, last registered first, and closes the scope. Every teardown runs even
 * when one throws; the first error is rethrown after all ran.
 */
export async function closeWorkerScope(): Promise<void> {
  const scope = current();
  delete (globalThis as Record<symbol, Scope | undefined>)[KEY];
  if (!scope) return;
  let failure: unknown;
  for (const teardown of scope.teardowns.reverse()) {
    try {
      await teardown();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Whether this process runs its test files in one worker scope (the fast project). */
export function inWorkerScope(): boolean {
  return current() !== undefined;
}

/** Registers a teardown for when the worker stops; false (nothing registered) outside a scope. */
export function onWorkerTeardown(teardown: Teardown): boolean {
  const scope = current();
  if (!scope) return false;
  scope.teardowns.push(teardown);
  return true;
}
