import type { Environment, Policy, Runtime, Task } from "../core/index.ts";
import type { SearchConfig } from "./config.ts";
import type { SearchNode } from "./node.ts";
import type { Prewarm } from "./prewarm.ts";
import type { ReachTime } from "./reach-time.ts";
import type { TreeNoise } from "./tree-noise.ts";
import type { TreeCounters } from "./tree-state.ts";

export interface TreeSpec {
  treeId: string;
  task: Task;
  /** The environment seed shared by every node of the tree (replay needs it). */
  seed: number;
  /** Key of the policy's randomness (not the run id, so a resumed or repeated run samples the same). */
  randomKey: string;
  config: SearchConfig;
  /** Noise injection: a fraction of branches noisy, the rest clean controls (web environment). */
  noise?: TreeNoise;
}

export interface TreeProgress {
  treeId: string;
  taskId: string;
  alive: number;
  queued: number;
  leaves: number;
  successes: number;
  busyEnvs: number;
}

export interface TreeSearchDeps {
  /** Live environment slots; their number is the cap on live environments. */
  envs: ReadonlyArray<Environment>;
  policy: Policy;
  runtime: Runtime;
  /** Called at the end of every round with the nodes that changed (persist them atomically). */
  onRound?: (changed: SearchNode[], counters: TreeCounters) => void;
  onProgress?: (p: TreeProgress) => void;
  signal?: AbortSignal;
  /**
   * The search's prewarms, shared by its trees; whoever passes it awaits `settle()` before closing the
   * environments. Without it, the tree prewarms on its own and awaits its prewarms before it returns.
   */
  warm?: Prewarm;
  /**
   * Called once, at the start of the round from which the tree can no longer use a free environment
   * (nothing queued, and no node may branch again or the node cap is reached): the next tree may
   * start then. The environments the tree's nodes still hold are held in `warm` until each node ends.
   */
  onHandOver?: () => void;
  /** The search's time reaching children's states, shared by its trees (run-search.ts). */
  reachTime?: ReachTime;
  /** The search's time starting its trees' roots (reset, or replay on resume), apart from `reachTime`. */
  startTime?: ReachTime;
}

export interface TreeResult {
  nodes: Map<string, SearchNode>;
  counters: TreeCounters;
  interrupted: boolean;
}
