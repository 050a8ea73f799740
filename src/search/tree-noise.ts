import { createRandom, type Environment } from "../core/index.ts";
import type { NoiseEventRecord, PlannedNoiseEvent } from "../noise/noisy-environment.ts";
import type { NoiseTag } from "../noise/tags.ts";
import type { SearchNode } from "./node.ts";

/**
 * An environment slot that fires a noise schedule into its episodes (the noise layer's
 * `NoisyEnvironment` is one): the search sets each branch's schedule before it reaches its state and
 * reads what fired when the branch ends.
 */
export interface NoiseSlot extends Environment {
  /** The schedule for the next `reset` or `restore`. */
  setSchedule(events: ReadonlyArray<PlannedNoiseEvent> | null): void;
  /** The current episode's events so far (fired ones, with recovery). */
  events(): NoiseEventRecord[];
}

/**
 * Noise injection into a search tree, as a hook: a fraction of branches noisy, the rest clean
 * controls. The search knows no noise type; it plans through `plan`, runs on the slots `attach`
 * makes, and tags leaves with `tag` (the noise layer's `branchNoiseHooks` give `attach` and `tag`).
 */
export interface TreeNoise {
  /** Share of nodes (branches) that draw noise for their own steps. */
  fraction: number;
  /** The task's success rate for the fire count; default: the tree's own so far, (successes + 1) / (leaves + 2). */
  successRate?: number;
  /** Samples a branch's events at steps ≥ `fromStep` (e.g. `sampleSchedule` with the train split). */
  plan(args: {
    taskId: string;
    rollout: string;
    fromStep: number;
    successRate: number;
    /** Expected episode length: the mean leaf length so far (the horizon before any leaf). */
    span: number;
  }): PlannedNoiseEvent[];
  /** Makes a live environment fire schedules; called once per environment slot of the tree. */
  attach(env: Environment): NoiseSlot;
  /** A leaf's tag from the events that applied on its path and its outcome. */
  tag(events: ReadonlyArray<NoiseEventRecord>, success: boolean): NoiseTag;
}

/** What `assignNoise` reads of the tree: its key, task, horizon and the leaves so far. */
export interface NoiseContext {
  treeId: string;
  taskId: string;
  randomKey: string;
  horizon: number;
  leaves(): ReadonlyArray<SearchNode>;
}

/**
 * A node is noisy with probability `fraction` (keyed by tree and node), else a clean control. It
 * keeps the events its parent's path already fired (they are part of the state it reaches) and, when
 * noisy, draws its own for the steps after its branch point.
 */
export function assignNoise(
  noise: TreeNoise | undefined,
  node: SearchNode,
  parent: SearchNode | null,
  tree: NoiseContext,
): void {
  if (!noise || noise.fraction <= 0) return;
  const noisy = createRandom("noise-branch", tree.randomKey, tree.taskId, node.seq).next() < noise.fraction;
  const inherited = (parent?.noise?.schedule ?? []).filter((e) => e.step <= node.fromStep);
  const done = tree.leaves();
  const successRate =
    noise.successRate ?? (done.filter((n) => n.outcome?.success).length + 1) / (done.length + 2);
  const span =
    done.length === 0 ? tree.horizon : Math.ceil(done.reduce((a, n) => a + n.prefix.length, 0) / done.length);
  const own = noisy
    ? noise.plan({
        span,
        taskId: tree.taskId,
        rollout: `${tree.treeId}/n${node.seq}`,
        fromStep: parent ? node.fromStep + 1 : 0,
        successRate,
      })
    : [];
  node.noise = { noisy, schedule: [...inherited, ...own] };
}
