import type { Environment, Logger } from "../core/index.ts";
import type { Slot } from "./tree-phases.ts";

/**
 * An environment whose restores are cheaper when it already shows the task and seed restored into
 * (the web environment restores into its live page then, without a page load). `prewarm` brings it
 * there; it changes nothing a restore depends on (a restore reaches its exact state, checked by
 * fingerprint), so the search may call it on an idle environment at any time.
 */
export interface Prewarmable {
  prewarm(target: PrewarmTarget): Promise<void>;
}

/** The task and seed a prewarm loads. */
export interface PrewarmTarget {
  taskId: string;
  seed: number;
}

function prewarmable(env: Environment): env is Environment & Prewarmable {
  return typeof (env as Partial<Prewarmable>).prewarm === "function";
}

const keyOf = (t: PrewarmTarget) => `${t.seed}:${t.taskId}`;

/**
 * Idle environments made ready for a tree's children while the tree's first nodes work: each free
 * slot is prewarmed once per target, in the background; a node that takes the slot waits for it first
 * (that wait counts as reaching its state). A search keeps one for all its trees: an environment that
 * a finishing tree's node still holds when the next tree starts is held here (`hold`) until the node
 * lets it go, so that the next tree's prewarms and nodes wait for it. Only slots without noise (a
 * noise slot keeps the noise layer's own episode state) whose environment can restore snapshots are
 * prewarmed. An environment's prewarms and holds run one after another.
 */
export class Prewarm {
  private readonly pending = new Map<Environment, Promise<void>>();
  /** The target each environment was last prewarmed for. */
  private readonly warmed = new Map<Environment, string>();
  /** Environments a finishing tree's nodes still hold (`hold`). */
  private readonly held = new Set<Environment>();
  /** Prewarm and hold chains that have ended (an environment whose chain ended is ready at once). */
  private readonly ended = new WeakSet<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** Starts prewarming, for `target`, the free slots not prewarmed for it last. */
  start(free: ReadonlyArray<Slot>, target: PrewarmTarget): void {
    const key = keyOf(target);
    for (const slot of free) {
      const env = slot.base;
      if (this.warmed.get(env) === key || slot.noise || !env.capabilities.snapshot || !prewarmable(env))
        continue;
      this.warmed.set(env, key);
      const before = this.pending.get(env) ?? Promise.resolve();
      const run = before.then(() =>
        env.prewarm(target).catch((error: unknown) => {
          // The node's own restore does the real work and reports what fails.
          this.logger.debug("prewarm failed", { taskId: target.taskId, error: (error as Error).message });
        }),
      );
      this.track(env, run);
    }
  }

  private track(env: Environment, run: Promise<void>): void {
    this.pending.set(env, run);
    void run.then(() => this.ended.add(run));
  }

  /** Whether a node taking `env` now would not wait (no prewarm or hold of it still running). */
  isReady(env: Environment): boolean {
    const run = this.pending.get(env);
    return run === undefined || this.ended.has(run);
  }

  /**
   * Keeps `env` from the next tree's prewarms and nodes (they wait for it) until the returned release
   * is called: a finishing tree's node still uses it.
   */
  hold(env: Environment): () => void {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.held.add(env);
    const before = this.pending.get(env) ?? Promise.resolve();
    this.track(
      env,
      before.then(() => released),
    );
    return () => {
      this.held.delete(env);
      release();
    };
  }

  /** Whether a finishing tree's node still holds `env`. */
  isHeld(env: Environment): boolean {
    return this.held.has(env);
  }

  /** Waits until `slot`'s prewarms and holds, if any, are done. */
  async ready(slot: Slot): Promise<void> {
    const run = this.pending.get(slot.base);
    if (!run) return;
    this.pending.delete(slot.base);
    await run;
  }

  /** Waits for every prewarm still running (before the search returns its environments). */
  async settle(): Promise<void> {
    const runs = [...this.pending.values()];
    this.pending.clear();
    await Promise.all(runs);
  }
}
