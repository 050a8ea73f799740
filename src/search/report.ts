import type { Task } from "../core/index.ts";
import type { NoiseTag } from "../noise/tags.ts";
import { type SearchNode, stepOwners } from "./node.ts";

export interface TreeStats {
  taskId: string;
  tier: string;
  split: string;
  nodes: number;
  leaves: number;
  successes: number;
  /** Successful leaves / leaves. */
  successRate: number;
  /** Unique kept steps: steps on successful leaves' paths, deduplicated by (owning node, step index). */
  uniqueSteps: number;
  dropped: number;
  envSteps: number;
  /** Leaves per noise tag (searches with noise). */
  noiseTags?: Partial<Record<NoiseTag, number>>;
}

/** The unique (owner node, step index) keys on the paths of successful leaves. */
export function uniqueSuccessSteps(nodes: ReadonlyMap<string, SearchNode>): Set<string> {
  const keys = new Set<string>();
  for (const n of nodes.values()) {
    if (n.status !== "leaf" || !n.outcome?.success) continue;
    for (const [index, owner] of stepOwners(n, nodes)) keys.add(`${owner}#${index}`);
  }
  return keys;
}

export function treeStats(task: Task, nodes: ReadonlyMap<string, SearchNode>, envSteps: number): TreeStats {
  const all = [...nodes.values()];
  const leaves = all.filter((n) => n.status === "leaf");
  const successes = leaves.filter((n) => n.outcome?.success).length;
  const tags: Partial<Record<NoiseTag, number>> = {};
  for (const n of leaves) if (n.noise?.tag) tags[n.noise.tag] = (tags[n.noise.tag] ?? 0) + 1;
  return {
    taskId: task.id,
    tier: task.tier ?? "-",
    split: task.split,
    nodes: all.length,
    leaves: leaves.length,
    successes,
    successRate: leaves.length === 0 ? 0 : successes / leaves.length,
    uniqueSteps: uniqueSuccessSteps(nodes).size,
    dropped: all.filter((n) => n.status === "dropped").length,
    envSteps,
    ...(leaves.some((n) => n.noise) ? { noiseTags: tags } : {}),
  };
}
