import {
  type Action,
  createRuntime,
  type Environment,
  EnvironmentError,
  type Policy,
  SNAPSHOT_UNSUPPORTED,
  type Task,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import {
  runSearch,
  type SearchConfigInput,
  SearchConfigSchema,
  type SearchNode,
} from "../../src/search/index.ts";
import { createMemoryStore, type RunStore } from "../../src/store/index.ts";

/** A FrozenLake environment with some capabilities hidden or faults injected (for search tests). */
export function wrapEnvironment(
  env: Environment,
  options: {
    hideSnapshot?: boolean;
    noisyFingerprint?: boolean;
    failOnStep?: (n: number) => boolean;
    /** Declares snapshot but throws SNAPSHOT_UNSUPPORTED (like web pages without save/restore). */
    snapshotUnsupported?: boolean;
  } = {},
  /** Counters shared by all wrapped environments of one search. */
  shared: { steps: number; prints: number } = { steps: 0, prints: 0 },
): Environment {
  const wrapped: Environment = {
    family: env.family,
    suite: env.suite,
    capabilities: options.hideSnapshot ? { ...env.capabilities, snapshot: false } : env.capabilities,
    reset: (o) => env.reset(o),
    step: async (a) => {
      shared.steps += 1;
      const steps = shared.steps;
      if (options.failOnStep?.(steps)) {
        throw new EnvironmentError("env.test_crash", `injected failure at step ${steps}`);
      }
      return env.step(a);
    },
    evaluate: () => env.evaluate(),
    fingerprint: async () =>
      options.noisyFingerprint ? `${await env.fingerprint()}:${shared.prints++}` : env.fingerprint(),
    close: () => env.close(),
  };
  if (env.oracleAction) wrapped.oracleAction = () => env.oracleAction!();
  if (options.snapshotUnsupported) {
    wrapped.snapshot = async () => {
      throw new EnvironmentError(SNAPSHOT_UNSUPPORTED, "this task cannot save its state");
    };
    wrapped.restore = (snap) => env.restore!(snap);
    return wrapped;
  }
  if (!options.hideSnapshot && env.snapshot && env.restore) {
    wrapped.snapshot = () => env.snapshot!();
    wrapped.restore = (s) => env.restore!(s);
  }
  return wrapped;
}

export async function searchFrozenLake(options: {
  store?: RunStore;
  runId?: string;
  tasks?: string[];
  config?: SearchConfigInput;
  envOptions?: Record<string, unknown>;
  wrap?: Parameters<typeof wrapEnvironment>[1];
  signal?: AbortSignal;
  onRound?: () => void;
  policy?: Policy;
}) {
  const store = options.store ?? createMemoryStore();
  const runId = options.runId ?? "search_1";
  if (!store.getRun(runId))
    store.createRun({
      id: runId,
      kind: "search",
      seed: "s",
      config: {},
      codeVersion: "test",
      createdAtMs: 0,
    });
  const config = SearchConfigSchema.parse({ maxLiveEnvs: 3, ...(options.config ?? {}) });
  const shared = { steps: 0, prints: 0 };
  const envs = Array.from({ length: config.maxLiveEnvs }, () =>
    wrapEnvironment(
      createFrozenLakeEnvironment({ slippery: false, ...(options.envOptions ?? {}) }),
      options.wrap ?? {},
      shared,
    ),
  );
  const tasks: Task[] = (options.tasks ?? ["4x4", "random-5-3"]).map((id) =>
    (envs[0] as Environment).suite.get(id),
  );
  // The run's creator writes its tasks once (runSearch does not).
  for (const t of tasks) store.putTask(runId, t);
  const result = await runSearch(
    {
      envs,
      policy: options.policy ?? createRandomPolicy(),
      runtime: createRuntime({ seed: "s" }),
      store,
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: () => options.onRound?.(),
    },
    { runId, seed: "s", tasks, config },
  );
  for (const e of envs) await e.close();
  return { store, result, config };
}

/** A comparable view of a tree: node seq → (status, prefix, outcome). */
export function treeView(nodes: Iterable<SearchNode>): string[] {
  return [...nodes]
    .sort((a, b) => a.seq - b.seq)
    .map(
      (n) =>
        `${n.seq}|${n.parentId?.split("/").pop() ?? "-"}|${n.status}|${n.endReason ?? ""}|${JSON.stringify(n.prefix)}|${n.outcome?.success ?? ""}`,
    );
}

export function leafPaths(nodes: Iterable<SearchNode>): string[] {
  return [...nodes]
    .filter((n) => n.status === "leaf")
    .map((n) => `${JSON.stringify(n.prefix)}=${n.outcome?.success}`)
    .sort();
}

/**
 * A base policy that plays the environment's solver with probability `skill`, else a uniform move: a
 * stand-in for a partly competent model (search needs one that sometimes succeeds).
 */
export function noisyOraclePolicy(skill: number): Policy {
  const moves: Action[] = ["left", "down", "right", "up"].map(
    (d) => ({ type: "move", direction: d }) as Action,
  );
  return {
    name: `noisy-oracle-${skill}`,
    async propose(ctx, { n, random }) {
      const best = ctx.oracle ? await ctx.oracle() : null;
      return {
        candidates: Array.from({ length: n }, () => {
          const action = best && random.next() < skill ? best : random.pick(moves);
          return { action, raw: JSON.stringify(action) };
        }),
      };
    },
  };
}
