import type { Environment, Logger } from "../core/index.ts";
import type { Slot } from "./tree-phases.ts";

/**
 * An environment whose restores are cheaper when it already shows the task and seed restored into
 * (the web environment restores into its live page then, without a page load). `prewarm` brings it
 * there; it changes nothing a restore depends on (a restore reaches its exact state, checked by
 * fingerprint), so the search may call it on an idle environment at any time.
 */
export interface Prewarmable {
  prewarm(target: { taskId: string; seed: number }): Promise<void>;
}

function prewarmable(env: Environment): env is Environment & Prewarmable {
  return typeof (env as Partial<Prewarmable>).prewarm === "function";
}

/**
 * Idle environments of a tree made ready for its children while the tree's first nodes work: each
 * free slot is prewarmed once per tree, in the background; a child that takes the slot waits for
 * it first (that wait counts as reaching its state). Only slots without noise (a noise slot keeps
 * the noise layer's own episode state) whose environment can restore snapshots are prewarmed.
 */
export class Prewarm {
  private readonly pending = new Map<Slot, Promise<void>>();
  private readonly warmed = new Set<Slot>();

  constructor(
    private readonly target: { taskId: string; seed: number },
    private readonly logger: Logger,
  ) {}

  /** Starts prewarming the free slots not prewarmed in this tree yet. */
  start(free: ReadonlyArray<Slot>): void {
    for (const slot of free) {
      const env = slot.env;
      if (this.warmed.has(slot) || slot.noise || !env.capabilities.snapshot || !prewarmable(env)) continue;
      this.warmed.add(slot);
      const run = env.prewarm(this.target).catch((error: unknown) => {
        // The child's own restore does the real work and reports what fails.
        this.logger.debug("prewarm failed", { taskId: this.target.taskId, error: (error as Error).message });
      });
      this.pending.set(slot, run);
    }
  }

  /** Waits until `slot`'s prewarm, if any, is done. */
  async ready(slot: Slot): Promise<void> {
    const run = this.pending.get(slot);
    if (!run) return;
    this.pending.delete(slot);
    await run;
  }

  /** Waits for every prewarm still running (before the tree returns its environments). */
  async settle(): Promise<void> {
    const runs = [...this.pending.values()];
    this.pending.clear();
    await Promise.all(runs);
  }
}
