import {
  type Action,
  type Environment,
  InternalError,
  isRehearsalError,
  type Observation,
} from "../core/index.ts";
import { endReason } from "./gates.ts";
import { reachState } from "./materialize.ts";
import type { SearchNode } from "./node.ts";
import type { Prewarm } from "./prewarm.ts";
import type { NoiseSlot } from "./tree-noise.ts";
import type { TreeSearchDeps, TreeSpec } from "./tree-spec.ts";
import type { RoundLog, TreeState } from "./tree-state.ts";

/** One live environment of the tree; `noise` is the same environment when the tree injects noise. */
export interface Slot {
  env: Environment;
  /** The live environment itself (`env` wraps it with noise), shared with the search's other trees. */
  base: Environment;
  noise?: NoiseSlot;
}

/** Everything the phases of a round work on. */
export interface TreeRun {
  deps: TreeSearchDeps;
  spec: TreeSpec;
  state: TreeState;
  /** Idle environments prewarmed for the tree's children (prewarm.ts). */
  warm?: Prewarm;
  /** The round the work is for: the current one unless given (a node activated ahead, the next). */
  log?: RoundLog;
}

/** The environment slots of a tree: with noise, each environment attached through the hook once. */
export function slotsOf(envs: ReadonlyArray<Environment>, spec: TreeSpec): Slot[] {
  const noise = spec.noise;
  if (!noise) return envs.map((env) => ({ env, base: env }));
  return envs.map((e) => {
    const slot = noise.attach(e);
    return { env: slot, base: e, noise: slot };
  });
}

/** The observation a node's environment shows now; a node that has not reached its state has none (a bug). */
export function liveObservation(node: SearchNode, operation: "propose" | "step"): Observation {
  if (node.observation) return node.observation;
  throw new InternalError(
    "search.node_without_observation",
    `search ${operation} of node ${node.id}: the node has no observation to act on (status ${node.status}); a node must reach its state before it proposes or steps — this is a bug in the search loop, please report it`,
    { details: { node: node.id, status: node.status } },
  );
}

/** Ends a node as a leaf: scores it with the verifier and, with noise, records what fired and its tag. */
export async function finish(run: TreeRun, node: SearchNode, slot: Slot, reason: string): Promise<void> {
  node.endReason = reason;
  node.outcome = await slot.env.evaluate();
  const noise = run.spec.noise;
  if (node.noise && slot.noise && noise) {
    node.noise.events = slot.noise.events();
    node.noise.tag = noise.tag(node.noise.events, node.outcome.success);
  }
  node.status = "leaf";
  delete node.observation;
}

/** Runs one action of a node; false when the node ended (it is then a leaf). */
export async function execute(
  run: TreeRun,
  node: SearchNode,
  slot: Slot,
  action: Action,
  raw: string,
): Promise<boolean> {
  const { state } = run;
  const before = liveObservation(node, "step");
  const r = await slot.env.step(action);
  state.counters.envSteps += 1;
  node.steps.push({
    index: node.prefix.length,
    observation: before,
    action,
    raw,
    reward: r.reward,
    terminated: r.terminated,
    truncated: r.truncated,
    info: r.info,
    timeMs: run.deps.runtime.clock.nowMs(),
  });
  node.prefix.push(action);
  node.observation = r.observation;
  node.envEnded = r.terminated || r.truncated;
  state.touch(node, run.log);
  const end = endReason(node.prefix, node.envEnded, run.spec.config);
  if (end) {
    await finish(run, node, slot, end);
    return false;
  }
  node.stateFingerprint = await slot.env.fingerprint();
  return true;
}

/** The fingerprint a node's reached state must show: its own when alive, its parent's when pending. */
function expectedFingerprintOf(node: SearchNode): string | undefined {
  return node.status === "alive" ? node.stateFingerprint : node.expectedFingerprint;
}

/** Gives a queued node an environment: reach its state (snapshot or replay), then run its pending action. */
export async function activate(run: TreeRun, node: SearchNode, slot: Slot): Promise<boolean> {
  const { state, spec, deps } = run;
  const { counters } = state;
  const clock = deps.runtime.clock;
  const snapshot = state.snapshots.get(node.id);
  slot.noise?.setSchedule(node.noise?.schedule ?? []);
  const expectedFingerprint = expectedFingerprintOf(node);
  const began = clock.monotonicMs();
  // A child reaches its parent's state; a root starts its tree (a reset, on resume a replay of its
  // prefix): its time is kept apart (`startTime`), as a rollout's reset is not branching's cost.
  const child = node.parentId !== null;
  const endTreeReach = child ? state.beginReach(began) : undefined;
  const endSearchReach = (child ? deps.reachTime : deps.startTime)?.begin(began);
  const reaching = async () => {
    await run.warm?.ready(slot);
    return reachState(slot.env, {
      taskId: spec.task.id,
      seed: spec.seed,
      prefix: node.prefix,
      ...(expectedFingerprint ? { expectedFingerprint } : {}),
      ...(snapshot ? { snapshot } : {}),
    });
  };
  const reached = await reaching().finally(() => {
    const ended = clock.monotonicMs();
    endTreeReach?.(ended);
    endSearchReach?.(ended);
  });
  state.snapshots.delete(node.id);
  if (reached.via === "replay") {
    counters.replaySteps += node.prefix.length;
    counters.envSteps += node.prefix.length;
  } else if (reached.via === "snapshot") counters.restores += 1;
  if (!reached.ok) {
    counters.mismatches += 1;
    deps.runtime.logger.warn("replay mismatch: child dropped", {
      node: node.id,
      expected: reached.expected,
      actual: reached.actual,
    });
    state.drop(
      node,
      `replay_mismatch via ${reached.via}: expected ${reached.expected.slice(0, 12)}, got ${reached.actual.slice(0, 12)}`,
      run.log,
    );
    return false;
  }
  node.observation = reached.observation;
  const pending = node.pending;
  node.status = "alive";
  state.touch(node, run.log);
  if (!pending) return true;
  delete node.pending;
  return execute(run, node, slot, pending.action, pending.raw);
}

/** Runs a phase of one node; an environment failure drops the node as infra-failed (never a leaf). */
export async function guarded(
  run: TreeRun,
  node: SearchNode,
  work: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await work();
  } catch (e) {
    if (!isRehearsalError(e) || e.category !== "environment") throw e;
    run.state.counters.infraFailures += 1;
    run.deps.runtime.logger.warn("environment failure: node dropped", {
      node: node.id,
      code: e.code,
      message: e.message,
    });
    run.state.drop(node, `infra_failed: ${e.code}`, run.log);
    return false;
  }
}
