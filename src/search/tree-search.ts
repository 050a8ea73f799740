import {
  type Action,
  createRandom,
  type Environment,
  type EnvironmentSnapshot,
  isRehearsalError,
  type Policy,
  type Proposal,
  type Runtime,
  SNAPSHOT_UNSUPPORTED,
  type Task,
} from "../core/index.ts";
import { NoisyEnvironment, type PlannedNoiseEvent } from "../noise/noisy-environment.ts";
import { noiseTag } from "../noise/tags.ts";
import { bucketCandidates } from "./buckets.ts";
import type { SearchConfig } from "./config.ts";
import { decideBranching, endReason, probesPerNode } from "./gates.ts";
import { reachState } from "./materialize.ts";
import { historyOf, pathSteps, type SearchNode } from "./node.ts";

/** The environment's snapshot, or undefined when it has none for this task (children then replay). */
async function trySnapshot(env: Environment): Promise<EnvironmentSnapshot | undefined> {
  if (!env.capabilities.snapshot || !env.snapshot) return undefined;
  try {
    return await env.snapshot();
  } catch (e) {
    if (isRehearsalError(e) && e.code === SNAPSHOT_UNSUPPORTED) return undefined;
    throw e;
  }
}

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
}

export interface TreeCounters {
  rounds: number;
  envSteps: number;
  replaySteps: number;
  replayMs: number;
  restores: number;
  proposals: number;
  candidates: number;
  mismatches: number;
  infraFailures: number;
}

/** Counters of a tree that has not run yet. */
export function zeroCounters(): TreeCounters {
  return {
    rounds: 0,
    envSteps: 0,
    replaySteps: 0,
    replayMs: 0,
    restores: 0,
    proposals: 0,
    candidates: 0,
    mismatches: 0,
    infraFailures: 0,
  };
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
}

export interface TreeResult {
  nodes: Map<string, SearchNode>;
  counters: TreeCounters;
  interrupted: boolean;
}

/**
 * ENVS search of one task (SEEDS.md §1), round by round: every alive node samples K candidates from the
 * frozen policy, buckets them by behaviour fingerprint, passes the gates, keeps the top bucket itself
 * and queues a child per further bucket up to the per-step cap. Children reach the parent's state by
 * snapshot or replay, checked by fingerprint (a mismatch drops the child, reported). Ended nodes are
 * leaves, scored by the task's verifier. Everything is keyed deterministically (node seq, step), so a
 * run resumed from its stored nodes (`resume`) continues exactly as an uninterrupted one.
 */
export async function searchTree(
  deps: TreeSearchDeps,
  spec: TreeSpec,
  resume?: ReadonlyArray<SearchNode>,
): Promise<TreeResult> {
  const { config, task } = spec;
  const clock = deps.runtime.clock;
  const counters = zeroCounters();
  const nodes = new Map<string, SearchNode>();
  const snapshots = new Map<string, EnvironmentSnapshot>();
  const slots = spec.noise
    ? deps.envs.map((e) => (e instanceof NoisyEnvironment ? e : new NoisyEnvironment(e)))
    : deps.envs;
  const free: Environment[] = [...slots].reverse();
  let active: Array<{ node: SearchNode; env: Environment }> = [];
  const queue: SearchNode[] = [];
  let seq = 0;
  let round = 0;

  const newNode = (
    init: Omit<SearchNode, "id" | "seq" | "gateLog" | "round" | "envEnded" | "steps">,
  ): SearchNode => {
    const node: SearchNode = {
      id: `${spec.treeId}/n${seq}`,
      seq,
      gateLog: [],
      round,
      envEnded: false,
      steps: [],
      ...init,
    };
    seq += 1;
    nodes.set(node.id, node);
    return node;
  };

  const leaves = () => [...nodes.values()].filter((n) => n.status === "leaf");

  /**
   * Noise: a node is noisy with probability `fraction` (keyed by tree and node), else a clean
   * control. It keeps the events its parent's path already fired (they are part of the state it
   * reaches) and, when noisy, draws its own for the steps after its branch point.
   */
  function assignNoise(node: SearchNode, parent: SearchNode | null): void {
    const noise = spec.noise;
    if (!noise || noise.fraction <= 0) return;
    const noisy = createRandom("noise-branch", spec.randomKey, task.id, node.seq).next() < noise.fraction;
    const inherited = (parent?.noise?.schedule ?? []).filter((e) => e.step <= node.fromStep);
    const done = leaves();
    const successRate =
      noise.successRate ?? (done.filter((n) => n.outcome?.success).length + 1) / (done.length + 2);
    const span =
      done.length === 0
        ? config.horizon
        : Math.ceil(done.reduce((a, n) => a + n.prefix.length, 0) / done.length);
    const own = noisy
      ? noise.plan({
          span,
          taskId: task.id,
          rollout: `${spec.treeId}/n${node.seq}`,
          fromStep: parent ? node.fromStep + 1 : 0,
          successRate,
        })
      : [];
    node.noise = { noisy, schedule: [...inherited, ...own] };
  }

  if (resume && resume.length > 0) {
    for (const n of [...resume].sort((a, b) => a.seq - b.seq)) {
      nodes.set(n.id, n);
      seq = Math.max(seq, n.seq + 1);
      round = Math.max(round, n.round);
    }
    const alive = [...nodes.values()].filter((n) => n.status === "alive");
    const pending = [...nodes.values()].filter((n) => n.status === "pending");
    queue.push(...alive, ...pending);
  } else {
    const root = newNode({
      parentId: null,
      fromStep: 0,
      prefix: [],
      budget: config.rootBranchBudget,
      hasBranched: false,
      status: "pending",
    });
    assignNoise(root, null);
    queue.push(root);
  }

  const changed = new Set<SearchNode>();

  async function finish(node: SearchNode, env: Environment, reason: string): Promise<void> {
    node.endReason = reason;
    node.outcome = await env.evaluate();
    if (node.noise && env instanceof NoisyEnvironment) {
      node.noise.events = env.events();
      node.noise.tag = noiseTag(node.noise.events, node.outcome.success);
    }
    node.status = "leaf";
    delete node.observation;
  }

  async function execute(node: SearchNode, env: Environment, action: Action, raw: string): Promise<boolean> {
    const before = node.observation;
    if (!before) throw new Error(`node ${node.id} has no observation`);
    const r = await env.step(action);
    counters.envSteps += 1;
    node.steps.push({
      index: node.prefix.length,
      observation: before,
      action,
      raw,
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info,
      timeMs: clock.nowMs(),
    });
    node.prefix.push(action);
    node.observation = r.observation;
    node.envEnded = r.terminated || r.truncated;
    node.round = round;
    changed.add(node);
    const end = endReason(node.prefix, node.envEnded, config);
    if (end) {
      await finish(node, env, end);
      return false;
    }
    node.stateFingerprint = await env.fingerprint();
    return true;
  }

  function drop(node: SearchNode, reason: string): void {
    node.status = "dropped";
    node.dropReason = reason;
    node.round = round;
    delete node.observation;
    changed.add(node);
  }

  /** Gives a queued node an environment: reach its state, then run its pending action. */
  async function activate(node: SearchNode, env: Environment): Promise<boolean> {
    const start = clock.monotonicMs();
    const snapshot = snapshots.get(node.id);
    if (env instanceof NoisyEnvironment) env.setSchedule(node.noise?.schedule ?? []);
    const reached = await reachState(env, {
      taskId: task.id,
      seed: spec.seed,
      prefix: node.prefix,
      ...(node.status === "alive"
        ? node.stateFingerprint
          ? { expectedFingerprint: node.stateFingerprint }
          : {}
        : node.expectedFingerprint
          ? { expectedFingerprint: node.expectedFingerprint }
          : {}),
      ...(snapshot ? { snapshot } : {}),
    });
    snapshots.delete(node.id);
    if (reached.via === "replay") {
      counters.replaySteps += node.prefix.length;
      counters.envSteps += node.prefix.length;
    } else if (reached.via === "snapshot") counters.restores += 1;
    counters.replayMs += clock.monotonicMs() - start;
    if (!reached.ok) {
      counters.mismatches += 1;
      deps.runtime.logger.warn("replay mismatch: child dropped", {
        node: node.id,
        expected: reached.expected,
        actual: reached.actual,
      });
      drop(
        node,
        `replay_mismatch via ${reached.via}: expected ${reached.expected.slice(0, 12)}, got ${reached.actual.slice(0, 12)}`,
      );
      return false;
    }
    node.observation = reached.observation;
    const pending = node.pending;
    node.status = "alive";
    node.round = round;
    changed.add(node);
    if (!pending) return true;
    delete node.pending;
    return execute(node, env, pending.action, pending.raw);
  }

  async function guarded(node: SearchNode, work: () => Promise<boolean>): Promise<boolean> {
    try {
      return await work();
    } catch (e) {
      if (!isRehearsalError(e) || e.category !== "environment") throw e;
      counters.infraFailures += 1;
      deps.runtime.logger.warn("environment failure: node dropped", {
        node: node.id,
        code: e.code,
        message: e.message,
      });
      drop(node, `infra_failed: ${e.code}`);
      return false;
    }
  }

  let interrupted = false;
  while (true) {
    if (deps.signal?.aborted) {
      interrupted = true;
      break;
    }
    round += 1;
    counters.rounds += 1;
    changed.clear();
    while (free.length > 0 && queue.length > 0) {
      const node = queue.shift() as SearchNode;
      const env = free.pop() as Environment;
      if (await guarded(node, () => activate(node, env))) active.push({ node, env });
      else free.push(env);
    }
    active.sort((a, b) => a.node.seq - b.node.seq);
    if (active.length === 0 && queue.length === 0) {
      deps.onRound?.([...changed], counters);
      break;
    }
    const k = probesPerNode(active.length, config, free.length + config.maxQueued - queue.length);
    const proposals: Proposal[] = await Promise.all(
      active.map(({ node, env }) => {
        const steps = pathSteps(node, nodes);
        const oracle = env.oracleAction ? () => env.oracleAction!() : undefined;
        return deps.policy.propose(
          {
            task,
            observation: node.observation as NonNullable<SearchNode["observation"]>,
            history: historyOf(steps),
            stepIndex: node.prefix.length,
            ...(oracle ? { oracle } : {}),
          },
          {
            n: k,
            temperature: config.temperature,
            random: createRandom("search", spec.randomKey, task.id, node.seq, node.prefix.length),
          },
        );
      }),
    );
    const moves: Array<{ action: Action; raw: string } | null> = [];
    for (let i = 0; i < active.length; i++) {
      const { node, env } = active[i] as { node: SearchNode; env: Environment };
      const proposal = proposals[i] as Proposal;
      counters.proposals += 1;
      counters.candidates += proposal.candidates.length;
      const bucketing = bucketCandidates(proposal.candidates, config);
      let decision = decideBranching(
        { step: node.prefix.length, budget: node.budget, hasBranched: node.hasBranched },
        bucketing,
        config,
      );
      if (decision.reason === "branch" && nodes.size + decision.children.length > config.maxNodesPerTree) {
        const room = Math.max(0, config.maxNodesPerTree - nodes.size);
        decision =
          room > 0
            ? { ...decision, children: decision.children.slice(0, room) }
            : { ...decision, reason: "node_cap", children: [] };
      }
      node.gateLog.push({
        step: node.prefix.length,
        reason: decision.reason,
        buckets: bucketing.buckets.map((b) => [b.fingerprint, b.size]),
        invalid: bucketing.invalid,
        probes: k,
      });
      changed.add(node);
      if (decision.children.length > 0) {
        const fingerprint = await env.fingerprint();
        const snapshot = await trySnapshot(env);
        node.budget -= 1;
        node.hasBranched = true;
        for (const b of decision.children) {
          const child = newNode({
            parentId: node.id,
            fromStep: node.prefix.length,
            prefix: [...node.prefix],
            budget: config.childBranchBudget,
            hasBranched: false,
            status: "pending",
            pending: { action: b.representative, raw: b.raw, fingerprint: b.fingerprint, bucketSize: b.size },
            expectedFingerprint: fingerprint,
          });
          assignNoise(child, node);
          if (snapshot) snapshots.set(child.id, snapshot);
          changed.add(child);
          queue.push(child);
        }
      }
      moves.push(
        decision.primary ? { action: decision.primary.representative, raw: decision.primary.raw } : null,
      );
    }
    const stillAlive = await Promise.all(
      active.map(async ({ node, env }, i) => {
        const move = moves[i];
        return guarded(node, async () => {
          if (!move) {
            await finish(node, env, "no_valid_action");
            changed.add(node);
            return false;
          }
          return execute(node, env, move.action, move.raw);
        });
      }),
    );
    const next: typeof active = [];
    active.forEach((entry, i) => {
      if (stillAlive[i]) next.push(entry);
      else free.push(entry.env);
    });
    active = next;
    deps.onRound?.(
      [...changed].sort((a, b) => a.seq - b.seq),
      counters,
    );
    const done = leaves();
    deps.onProgress?.({
      treeId: spec.treeId,
      taskId: task.id,
      alive: active.length,
      queued: queue.length,
      leaves: done.length,
      successes: done.filter((n) => n.outcome?.success).length,
      busyEnvs: active.length,
    });
  }
  return { nodes, counters, interrupted };
}
