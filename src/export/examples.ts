import {
  type Action,
  createRandom,
  type HistoryEntry,
  type Observation,
  type StepRecord,
  type Task,
  UserError,
} from "../core/index.ts";
import {
  balanceWeights,
  historyOf,
  loadTreeNodes,
  type SearchNode,
  stepOwners,
  type TaskWeight,
} from "../search/index.ts";
import type { RunStore } from "../store/contract.ts";
import { requireSearchRun } from "./run-checks.ts";

/** One deduplicated, verified step: what the policy saw before it and the action it took. */
export interface StepExample {
  taskId: string;
  task: Task;
  nodeId: string;
  stepIndex: number;
  leafIds: string[];
  /** The observations of this step's path, oldest first, ending with the current one. */
  observations: Observation[];
  /** The steps before this one as the search handed them to the policy (`historyOf`: acted steps only). */
  history: HistoryEntry[];
  target: Action;
  /** Per-example weight (global balancing; mean 1 over the exported set). */
  weight: number;
}

export interface CollectOptions {
  /** Keep this fraction of each task's successful leaves (seeded, at least one per task). */
  fraction?: number;
  seed: string;
  beta: number;
  wMax: number;
}

export interface CollectedExamples {
  examples: StepExample[];
  weights: TaskWeight[];
  /** Successful leaves kept per task after the fraction subsample. */
  keptLeaves: Record<string, number>;
}

function pathOf(
  leaf: SearchNode,
  nodes: ReadonlyMap<string, SearchNode>,
): Array<{ step: StepRecord; owner: string }> {
  const owners = stepOwners(leaf, nodes);
  const out: Array<{ step: StepRecord; owner: string }> = [];
  for (const [index, owner] of [...owners.entries()].sort((a, b) => a[0] - b[0])) {
    const step = nodes.get(owner)?.steps.find((s) => s.index === index);
    if (step) out.push({ step, owner });
  }
  return out;
}

/**
 * Successful leaves of a search run → per-step examples, deduplicated by (owning node, step index),
 * with the global balancing weights of SEEDS.md §1 computed on the exported set. Order: tasks as the
 * run listed them, then leaves by node creation order, then step index — deterministic.
 */
export function collectExamples(store: RunStore, runId: string, options: CollectOptions): CollectedExamples {
  requireSearchRun(store, runId, "export sft");
  if (options.fraction !== undefined && !(options.fraction > 0 && options.fraction <= 1)) {
    throw new UserError("export.fraction", `--fraction must be in (0, 1], got ${options.fraction}`);
  }
  const tasks = new Map(store.listTasks(runId).map((t) => [t.id, t] as const));
  const examples: StepExample[] = [];
  const stats: Array<{ taskId: string; leaves: number; successes: number; uniqueSteps: number }> = [];
  const keptLeaves: Record<string, number> = {};
  for (const tree of store.listTrees(runId)) {
    const task = tasks.get(tree.taskId);
    if (!task) {
      throw new UserError(
        "export.missing_task",
        `search run ${runId} has a tree for task ${tree.taskId} but no stored task; the store is incomplete`,
      );
    }
    const nodes = new Map(loadTreeNodes(store, tree.id).map((n) => [n.id, n] as const));
    const leaves = [...nodes.values()].filter((n) => n.status === "leaf").sort((a, b) => a.seq - b.seq);
    let successes = leaves.filter((n) => n.outcome?.success);
    if (options.fraction !== undefined && options.fraction < 1 && successes.length > 0) {
      const keep = Math.max(1, Math.round(options.fraction * successes.length));
      const chosen = new Set(
        createRandom("export-fraction", options.seed, task.id)
          .shuffle(successes.map((n) => n.id))
          .slice(0, keep),
      );
      successes = successes.filter((n) => chosen.has(n.id));
    }
    keptLeaves[task.id] = successes.length;
    const byKey = new Map<string, StepExample>();
    for (const leaf of successes) {
      const path = pathOf(leaf, nodes);
      for (let i = 0; i < path.length; i++) {
        const { step, owner } = path[i] as { step: StepRecord; owner: string };
        if (step.action === null) continue;
        const key = `${owner}#${step.index}`;
        const existing = byKey.get(key);
        if (existing) {
          existing.leafIds.push(leaf.id);
          continue;
        }
        const before = path.slice(0, i);
        const example: StepExample = {
          taskId: task.id,
          task,
          nodeId: owner,
          stepIndex: step.index,
          leafIds: [leaf.id],
          observations: [...before.map((p) => p.step.observation), step.observation],
          history: historyOf(before.map((p) => p.step)),
          target: step.action,
          weight: 0,
        };
        byKey.set(key, example);
        examples.push(example);
      }
    }
    stats.push({
      taskId: task.id,
      leaves: leaves.length,
      successes: leaves.filter((n) => n.outcome?.success).length,
      uniqueSteps: byKey.size,
    });
  }
  const weights = balanceWeights(stats, { beta: options.beta, wMax: options.wMax });
  const weightOf = new Map(weights.map((w) => [w.taskId, w.weight] as const));
  for (const e of examples) e.weight = weightOf.get(e.taskId) ?? 0;
  return { examples, weights, keptLeaves };
}
