import type { SearchNode } from "./node.ts";
import { activate, guarded, type Slot, type TreeRun } from "./tree-phases.ts";
import type { ActiveNode } from "./tree-round.ts";
import type { RoundLog } from "./tree-state.ts";

/**
 * Queued nodes reaching their states on free environments: in queue order, one environment each; a
 * node whose activation does not leave it alive (dropped, or ended by its pending action) frees its
 * environment for the next. The loop starts them at the start of a round and, ahead, while the round
 * before still moves: as soon as an environment is free and the queue's first node may reach its
 * state (its parent has recorded it). Either way a round activates the same nodes: the first queued
 * ones that the environments free at its start take, and every environment freed during the round
 * before is still free then, so the tree does not depend on when environments free up.
 *
 * A node started ahead belongs to the next round (its changes are that round's, `RoundLog`); the
 * current round's record of it is its data as it was before it started (`recordOf`).
 */
export class Activations {
  private readonly running = new Set<Promise<void>>();
  private readonly reached: ActiveNode[] = [];
  /** Children whose parent has not recorded its state for them yet. */
  private readonly waiting = new Set<SearchNode>();
  /** Nodes started ahead of their round, each with a copy of its data from before. */
  private readonly ahead = new Map<SearchNode, SearchNode>();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly run: TreeRun,
    private readonly free: Slot[],
  ) {}

  /** Children that may reach their parent's state only once it has recorded it (`captured`). */
  hold(children: ReadonlyArray<SearchNode>): void {
    for (const child of children) this.waiting.add(child);
  }

  /** The parent of `children` has recorded its state: they may start ahead. */
  captured(children: ReadonlyArray<SearchNode>): void {
    for (const child of children) this.waiting.delete(child);
    this.startAhead();
  }

  /** An environment of the current round is free: the next round's first queued node may take it. */
  freed(slot: Slot): void {
    this.free.push(slot);
    this.startAhead();
  }

  /** Starts the queued nodes that fit the free environments, for the current round. */
  start(): void {
    this.fill(this.run.state.current);
  }

  /**
   * Waits until every started node has reached its state (those whose environment frees start the
   * next queued ones); returns the nodes now alive on an environment (in no particular order).
   * Throws the first failure that was not the environment's.
   */
  async settle(): Promise<ActiveNode[]> {
    await this.idle();
    if (this.failure) throw this.failure.error;
    return this.reached.splice(0);
  }

  /** Waits until no activation runs (failures kept for `settle`). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** The data of `node` to persist at the current round's end (from before it started ahead). */
  recordOf(node: SearchNode): SearchNode {
    return this.ahead.get(node) ?? node;
  }

  /** Nodes started ahead of the next round. */
  get aheadCount(): number {
    return this.ahead.size;
  }

  /** The round ended: nodes started ahead are now the current round's. */
  roundEnded(): void {
    this.ahead.clear();
  }

  /** Puts the nodes started ahead back as they were (an interrupted search returns what it stored). */
  rollBack(): void {
    for (const [node, before] of this.ahead) this.run.state.nodes.set(node.id, before);
    this.ahead.clear();
  }

  private startAhead(): void {
    this.fill(this.run.state.upcoming());
  }

  private fill(log: RoundLog): void {
    const { state, deps } = this.run;
    const aheadOfRound = log !== state.current;
    // An interrupted search stops at the next round's start: nothing is started ahead for it.
    if (aheadOfRound && deps.signal?.aborted) return;
    while (
      this.free.length > 0 &&
      state.queue.length > 0 &&
      !this.waiting.has(state.queue[0] as SearchNode)
    ) {
      const node = state.queue.shift() as SearchNode;
      const slot = this.takeSlot();
      if (aheadOfRound) {
        this.ahead.set(node, structuredClone(node));
        state.counters.reachedAhead += 1;
      }
      const work = this.activate({ node, slot }, log).finally(() => this.running.delete(work));
      this.running.add(work);
    }
  }

  /**
   * A free environment for the next node: the last freed one that no prewarm or hold keeps busy (the
   * node starts at once), else the last freed one. Which environment a node gets changes nothing it
   * reaches (restores and replays are exact), only how long it waits.
   */
  private takeSlot(): Slot {
    const warm = this.run.warm;
    for (let i = this.free.length - 1; warm && i >= 0; i--) {
      if (warm.isReady((this.free[i] as Slot).base)) return this.free.splice(i, 1)[0] as Slot;
    }
    return this.free.pop() as Slot;
  }

  private async activate(entry: ActiveNode, log: RoundLog): Promise<void> {
    const run = { ...this.run, log };
    try {
      if (await guarded(run, entry.node, () => activate(run, entry.node, entry.slot))) {
        this.reached.push(entry);
        return;
      }
    } catch (error) {
      this.failure ??= { error };
      return;
    }
    this.free.push(entry.slot);
    this.fill(log);
  }
}
