import { type Environment, type Policy, type Runtime, stableSeed, type Task } from "../core/index.ts";
import { branchNoiseHooks } from "../noise/branch-hooks.ts";
import { sampleSchedule } from "../noise/schedule.ts";
import type { RunStore } from "../store/contract.ts";
import type { SearchConfig } from "./config.ts";
import type { SearchNode } from "./node.ts";
import { loadTreeNodes, nodeToRecord, storedCounters } from "./persistence.ts";
import { Prewarm, type PrewarmTarget } from "./prewarm.ts";
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
 * The run's tasks are written once by whoever created the run (the runner), not here.
 */
export async function runSearch(deps: SearchRunDeps, spec: SearchRunSpec): Promise<SearchRunResult> {
  const { store } = deps;
  const results: TaskSearchResult[] = [];
  let interrupted = false;
  const noise = spec.noise ?? noiseOf(spec.config);
  // Prewarms are shared by the trees (a tree's idle environments prewarm the next tree's task) and
  // awaited on every way out, so that the caller never closes an environment in the middle of one.
  const warm = new Prewarm(deps.runtime.logger);
  try {
    await searchTasks();
  } finally {
    await warm.settle();
  }
  return { tasks: results, interrupted };

  /** The next task after the `i`-th whose tree is not complete yet, as a prewarm target. */
  function nextTarget(i: number): PrewarmTarget | undefined {
    const task = spec.tasks[i + 1];
    if (!task || store.getTree(treeIdOf(spec.runId, task.id))?.status === "complete") return undefined;
    return { taskId: task.id, seed: searchSeedOf(spec.seed, task.id) };
  }

  async function searchTasks(): Promise<void> {
    for (const [i, task] of spec.tasks.entries()) {
      const treeId = treeIdOf(spec.runId, task.id);
      const seed = searchSeedOf(spec.seed, task.id);
      const existing = store.getTree(treeId);
      if (existing?.status === "complete") {
        const nodes = new Map(loadTreeNodes(store, treeId).map((n) => [n.id, n] as const));
        const counters = storedCounters(existing);
        results.push({ stats: treeStats(task, nodes, counters.envSteps), counters, nodes });
        continue;
      }
      if (deps.signal?.aborted) {
        interrupted = true;
        break;
      }
      const resume = existing ? loadTreeNodes(store, treeId) : undefined;
      const previous = storedCounters(existing);
      const putTree = (status: "running" | "complete", data: Record<string, unknown>) =>
        store.putTree({ id: treeId, runId: spec.runId, taskId: task.id, seed, status, data });
      putTree("running", { counters: previous });
      const next = nextTarget(i);
      const tree = await searchTree(
        {
          envs: deps.envs,
          policy: deps.policy,
          runtime: deps.runtime,
          warm,
          ...(deps.signal ? { signal: deps.signal } : {}),
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
          ...(next ? { next } : {}),
        },
        resume,
      );
      const counters = sumCounters(previous, tree.counters);
      const stats = treeStats(task, tree.nodes, counters.envSteps);
      putTree(tree.interrupted ? "running" : "complete", { counters, stats });
      results.push({ stats, counters, nodes: tree.nodes });
      if (tree.interrupted) {
        interrupted = true;
        break;
      }
    }
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
