import { type Environment, type Policy, type Runtime, stableSeed, type Task } from "../core/index.ts";
import { branchNoiseHooks } from "../noise/branch-hooks.ts";
import { sampleSchedule } from "../noise/schedule.ts";
import type { RunStore, TreeRecord } from "../store/contract.ts";
import type { SearchConfig } from "./config.ts";
import type { SearchNode } from "./node.ts";
import { loadTreeNodes, nodeToRecord, storedCounters } from "./persistence.ts";
import { Prewarm } from "./prewarm.ts";
import { ReachTime } from "./reach-time.ts";
import { type TreeStats, treeStats } from "./report.ts";
import type { TreeNoise } from "./tree-noise.ts";
import { searchTree } from "./tree-search.ts";
import type { TreeProgress } from "./tree-spec.ts";
import type { TreeCounters } from "./tree-state.ts";

export interface SearchRunSpec {
  runId: string;
  /** Root seed: each task's environment seed is a stable hash of seed|task|"search". */
  seed: string;
  tasks: ReadonlyArray<Task>;
  config: SearchConfig;
  /** Noise injection into a fraction of the branches (see `TreeNoise`). */
  noise?: TreeNoise;
}

export interface SearchRunDeps {
  envs: ReadonlyArray<Environment>;
  policy: Policy;
  runtime: Runtime;
  store: RunStore;
  signal?: AbortSignal;
  onProgress?: (p: TreeProgress & { tasksDone: number; tasksTotal: number }) => void;
}

export interface TaskSearchResult {
  stats: TreeStats;
  counters: TreeCounters;
  nodes: Map<string, SearchNode>;
}

export interface SearchRunResult {
  tasks: TaskSearchResult[];
  interrupted: boolean;
  /**
   * This call's time reaching children's states (ReachTime): `wallMs`, wall time with at least one
   * reach in flight in any tree; `envMs`, the reaches' summed durations. Trees read back complete
   * from the store add nothing. A root's start is not a child's reach: it is in `starts`.
   */
  reach: { wallMs: number; envMs: number };
  /**
   * This call's time starting the trees' roots (ReachTime, as `reach`): each root's reset, or on
   * resume the replay of an alive root's prefix; `reach` + `starts` is all the time spent reaching
   * nodes' states.
   */
  starts: { wallMs: number; envMs: number };
}

export function treeIdOf(runId: string, taskId: string): string {
  return `${runId}:${taskId}`;
}

export function searchSeedOf(seed: string, taskId: string): number {
  return stableSeed(seed, taskId, "search") & 0x7fffffff;
}

/**
 * Searches every task in order, persisting each tree's nodes at the end of every round (one
 * transaction) so that `resume` continues from the last complete round: finished trees are read back,
 * running trees continue from their stored nodes, and the verified leaves equal an uninterrupted run's.
 * A tree starts once the tree before hands over (it can no longer use a free environment), on the
 * environments that tree's last nodes do not hold, the others following as those nodes end: at most
 * two trees run at once, and neither's nodes depend on the other's timing.
 * The run's tasks are written once by whoever created the run (the runner), not here.
 */
export async function runSearch(deps: SearchRunDeps, spec: SearchRunSpec): Promise<SearchRunResult> {
  const { store } = deps;
  const results: Array<TaskSearchResult | undefined> = [];
  let interrupted = false;
  const noise = spec.noise ?? noiseOf(spec.config);
  // A tree that fails stops the one running beside it (which is awaited before the error is thrown).
  const failed = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, failed.signal]) : failed.signal;
  // Prewarms and held environments are shared by the trees and awaited on every way out, so that the
  // caller never closes an environment in the middle of a prewarm.
  const warm = new Prewarm(deps.runtime.logger);
  const reachTime = new ReachTime();
  const startTime = new ReachTime();
  const running: Promise<boolean>[] = [];
  try {
    await searchTasks();
  } catch (e) {
    failed.abort();
    throw e;
  } finally {
    await Promise.allSettled(running);
    await warm.settle();
  }
  return {
    tasks: results.filter((r) => r !== undefined),
    interrupted,
    reach: reachTime.figures(),
    starts: startTime.figures(),
  };

  async function searchTasks(): Promise<void> {
    let finishing: Promise<boolean> | undefined;
    for (const [i, task] of spec.tasks.entries()) {
      const treeId = treeIdOf(spec.runId, task.id);
      const existing = store.getTree(treeId);
      if (existing?.status === "complete") {
        const nodes = new Map(loadTreeNodes(store, treeId).map((n) => [n.id, n] as const));
        const counters = storedCounters(existing);
        results[i] = { stats: treeStats(task, nodes, counters.envSteps), counters, nodes };
        continue;
      }
      if (signal.aborted) {
        interrupted = true;
        break;
      }
      let handOver = () => {};
      const handedOver = new Promise<void>((resolve) => {
        handOver = resolve;
      });
      const tree = searchOne(i, task, existing, handOver);
      running.push(tree);
      tree.catch(() => failed.abort());
      // The next tree starts once this one hands over (or ends), and once the tree before has ended.
      await Promise.race([handedOver, tree]);
      if (finishing && (await finishing)) interrupted = true;
      finishing = tree;
      if (interrupted) break;
    }
    if (finishing && (await finishing)) interrupted = true;
  }

  /** Searches the `i`-th task's tree (continuing its stored nodes); true when it was interrupted. */
  async function searchOne(
    i: number,
    task: Task,
    existing: TreeRecord | undefined,
    onHandOver: () => void,
  ): Promise<boolean> {
    const treeId = treeIdOf(spec.runId, task.id);
    const seed = searchSeedOf(spec.seed, task.id);
    const resume = existing ? loadTreeNodes(store, treeId) : undefined;
    const previous = storedCounters(existing);
    const putTree = (status: "running" | "complete", data: Record<string, unknown>) =>
      store.putTree({ id: treeId, runId: spec.runId, taskId: task.id, seed, status, data });
    putTree("running", { counters: previous });
    const tree = await searchTree(
      {
        envs: deps.envs,
        policy: deps.policy,
        runtime: deps.runtime,
        warm,
        reachTime,
        startTime,
        signal,
        onHandOver,
        onRound: (changed, counters) => {
          if (changed.length > 0) store.putNodes(changed.map((n) => nodeToRecord(n, treeId, store)));
          putTree("running", { counters: sumCounters(previous, counters) });
        },
        onProgress: (p) => deps.onProgress?.({ ...p, tasksDone: i, tasksTotal: spec.tasks.length }),
      },
      {
        treeId,
        task,
        seed,
        randomKey: spec.seed,
        config: spec.config,
        ...(noise ? { noise } : {}),
      },
      resume,
    );
    const counters = sumCounters(previous, tree.counters);
    const stats = treeStats(task, tree.nodes, counters.envSteps);
    putTree(tree.interrupted ? "running" : "complete", { counters, stats });
    results[i] = { stats, counters, nodes: tree.nodes };
    return tree.interrupted;
  }
}

/** The search's noise from its config: train-split schedules sampled per branch (`sampleSchedule`). */
export function noiseOf(config: SearchConfig): TreeNoise | undefined {
  if (config.noiseFraction <= 0) return undefined;
  return {
    ...branchNoiseHooks,
    fraction: config.noiseFraction,
    ...(config.noiseSuccessRate !== undefined ? { successRate: config.noiseSuccessRate } : {}),
    plan: ({ taskId, rollout, fromStep, successRate, span }) =>
      sampleSchedule({
        taskId,
        rollout,
        fromStep,
        successRate,
        purpose: "search",
        split: "train",
        // Events land within the expected episode length (never before the branch's own steps).
        options: { horizon: config.horizon, span: Math.max(span, fromStep + 1) },
      }).events,
  };
}

function sumCounters(a: TreeCounters, b: TreeCounters): TreeCounters {
  const out = { ...a };
  for (const k of Object.keys(b) as Array<keyof TreeCounters>) out[k] = a[k] + b[k];
  return out;
}
