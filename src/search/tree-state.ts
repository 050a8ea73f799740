import { z } from "zod";
import type { EnvironmentSnapshot } from "../core/index.ts";
import type { SearchNode } from "./node.ts";
import { ReachTime } from "./reach-time.ts";

const count = () => z.number().default(0);

/** A tree's work counters; read back from the store, a field an older version lacks counts zero. */
export const TreeCountersSchema = z.object({
  rounds: count(),
  envSteps: count(),
  replaySteps: count(),
  /** Wall time during which at least one child was reaching its state (restore or reset + replay). */
  replayMs: count(),
  restores: count(),
  proposals: count(),
  candidates: count(),
  mismatches: count(),
  infraFailures: count(),
  /** Nodes that began reaching their states during the previous round's moves (pipelined). */
  reachedAhead: count(),
});
export type TreeCounters = z.output<typeof TreeCountersSchema>;

/** Counters of a tree that has not run yet. */
export function zeroCounters(): TreeCounters {
  return TreeCountersSchema.parse({});
}

/** What a new node needs beyond what the tree assigns (id, seq, round, empty steps and gate log). */
export type NodeInit = Omit<SearchNode, "id" | "seq" | "gateLog" | "round" | "envEnded" | "steps">;

/** A round: its number and the nodes changed in it (persisted at its end). */
export interface RoundLog {
  readonly round: number;
  readonly changed: Set<SearchNode>;
}

/**
 * The state of one tree while it is searched: its nodes by id (creation order), the queue of nodes
 * waiting for an environment, the parents' snapshots their children restore, the current round (and
 * the next one while its first nodes start during the current one's moves), the counters. Node ids and
 * seqs are deterministic (`<tree>/n<seq>`).
 */
export class TreeState {
  readonly nodes = new Map<string, SearchNode>();
  readonly snapshots = new Map<string, EnvironmentSnapshot>();
  readonly queue: SearchNode[] = [];
  readonly counters = zeroCounters();
  /** The round running now. */
  current: RoundLog = { round: 0, changed: new Set() };
  /** The next round, once work for it has started during the current one. */
  private next: RoundLog | undefined;
  private seq = 0;
  private readonly reach = new ReachTime();

  constructor(readonly treeId: string) {}

  /** Creates a node in the current round with the next seq. */
  add(init: NodeInit): SearchNode {
    const node: SearchNode = {
      id: `${this.treeId}/n${this.seq}`,
      seq: this.seq,
      gateLog: [],
      round: this.round,
      envEnded: false,
      steps: [],
      ...init,
    };
    this.seq += 1;
    this.nodes.set(node.id, node);
    return node;
  }

  get round(): number {
    return this.current.round;
  }

  /** The nodes changed in the current round. */
  get changed(): Set<SearchNode> {
    return this.current.changed;
  }

  /** The next round, made on first use (work for it may start before the current round ends). */
  upcoming(): RoundLog {
    this.next ??= { round: this.current.round + 1, changed: new Set() };
    return this.next;
  }

  /** Starts the next round (with what already changed in it). */
  advance(): void {
    this.current = this.upcoming();
    this.next = undefined;
  }

  /** Takes stored nodes back: seq and round continue after theirs; alive, then pending nodes queue. */
  resume(stored: ReadonlyArray<SearchNode>): void {
    let round = this.current.round;
    for (const n of [...stored].sort((a, b) => a.seq - b.seq)) {
      this.nodes.set(n.id, n);
      this.seq = Math.max(this.seq, n.seq + 1);
      round = Math.max(round, n.round);
    }
    this.current = { round, changed: new Set() };
    const all = [...this.nodes.values()];
    this.queue.push(...all.filter((n) => n.status === "alive"), ...all.filter((n) => n.status === "pending"));
  }

  /**
   * A child starts reaching its state (reaches run concurrently; `replayMs` counts their union);
   * returns the function that ends it.
   */
  beginReach(nowMs: number): (endMs: number) => void {
    const end = this.reach.begin(nowMs);
    return (endMs) => {
      end(endMs);
      this.counters.replayMs = this.reach.figures().wallMs;
    };
  }

  leaves(): SearchNode[] {
    return [...this.nodes.values()].filter((n) => n.status === "leaf");
  }

  /** Marks a node changed in `log`'s round (it is persisted at that round's end). */
  touch(node: SearchNode, log: RoundLog = this.current): void {
    node.round = log.round;
    log.changed.add(node);
  }

  drop(node: SearchNode, reason: string, log: RoundLog = this.current): void {
    node.status = "dropped";
    node.dropReason = reason;
    delete node.observation;
    this.touch(node, log);
  }
}
