// Rollout benchmark: what `runEpisodes` and the run stores cost per step. The random policy plays
// episodes with no store (the reference), with the memory store and with the SQLite store (a temp
// directory), on two environments: FrozenLake 8x8 and a constant-time fake environment implementing
// the contract (labelled "reference env": it returns prebuilt frozen observations, so what is left is
// the rollout loop and the store). A store's write cost per step is (CPU time with the store − CPU time
// without) / steps, measured in the same run. Interleaved rounds after a full-size warm-up of each; medians. Run by bench/run.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Action,
  createRuntime,
  type Environment,
  type Observation,
  type StepResult,
  type Task,
  type TaskSuite,
} from "../src/core/index.ts";
import { systemClock } from "../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../src/policies/random-policy.ts";
import { runEpisodes } from "../src/rollout/index.ts";
import { createMemoryStore, openSqliteStore, type RunStore } from "../src/store/index.ts";
import { createBenchRun } from "./bench-run.ts";
import { frozenLakeSteps } from "./env-step.ts";
import { memoryStoreCallsUs } from "./store-calls.ts";

const MOVES: ReadonlyArray<Action> = Object.freeze(
  (["left", "down", "right", "up"] as const).map((direction) => Object.freeze({ type: "move", direction })),
);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The reference environment: 16 prebuilt frozen observations visited in turn; every episode ends
 * (terminated, reward 1) after `length` steps. Constant time per step, no randomness of its own.
 */
export function createReferenceEnvironment(length = 50): Environment {
  const task: Task = deepFreeze({
    id: "ref",
    instruction: "reference episode",
    family: "reference",
    seed: 0,
    split: "train",
    verifier: { kind: "reference" },
    tags: [],
  });
  const observations: Observation[] = Array.from({ length: 16 }, (_, i) =>
    deepFreeze({
      text: `cell ${i}\n${"_".repeat(64)}`,
      stateKey: `ref:${i}`,
      legalActions: [...MOVES],
      data: { cell: i },
    }),
  );
  const suite: TaskSuite = { name: "reference", family: "reference", list: () => [task], get: () => task };
  let t = 0;
  return {
    family: "reference",
    capabilities: { snapshot: false, replay: true, deterministic: true },
    suite,
    async reset() {
      t = 0;
      return observations[0] as Observation;
    },
    async step(): Promise<StepResult> {
      t += 1;
      const done = t >= length;
      return {
        observation: observations[t & 15] as Observation,
        reward: done ? 1 : 0,
        terminated: done,
        truncated: false,
        info: {},
      };
    },
    async evaluate() {
      return { reward: t >= length ? 1 : 0, success: t >= length, reason: "reference", metrics: {} };
    },
    async fingerprint() {
      return String(t);
    },
    async close() {},
  };
}

type StoreKind = "none" | "memory" | "sqlite";

interface Measured {
  steps: number;
  cpuSeconds: number;
  wallSeconds: number;
}

async function measure(
  makeEnv: () => Environment,
  taskIds: ReadonlyArray<string>,
  kind: StoreKind,
  episodes: number,
): Promise<Measured> {
  const env = makeEnv();
  const dir = kind === "sqlite" ? mkdtempSync(join(tmpdir(), "rehearsal-bench-")) : undefined;
  const store: RunStore | undefined =
    kind === "memory" ? createMemoryStore() : dir ? openSqliteStore({ dir }) : undefined;
  const runtime = createRuntime({ seed: "bench", clock: systemClock });
  const runId = createBenchRun(store);
  const tasks = taskIds.map((id) => env.suite.get(id));
  const cpu = process.cpuUsage();
  const start = performance.now();
  const { results } = await runEpisodes(
    { env, policy: createRandomPolicy(), runtime, ...(store ? { store } : {}) },
    { runId, tasks, episodes: Math.ceil(episodes / tasks.length), seed: "bench", temperature: 1 },
  );
  const wallSeconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  store?.close();
  await env.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  const steps = results.reduce((a, r) => a + r.steps, 0);
  return { steps, cpuSeconds: (used.user + used.system) / 1e6, wallSeconds };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Per store kind: median steps per wall second and CPU µs per step over interleaved rounds. */
export async function benchEnvironment(
  label: string,
  makeEnv: () => Environment,
  taskIds: ReadonlyArray<string>,
  episodes: number,
  rounds: number,
): Promise<Record<string, number>> {
  const kinds: StoreKind[] = ["none", "memory", "sqlite"];
  const perSecond: Record<StoreKind, number[]> = { none: [], memory: [], sqlite: [] };
  const usPerStep: Record<StoreKind, number[]> = { none: [], memory: [], sqlite: [] };
  // Warm-up (JIT) at full size for every kind: shorter ones left the first measured rounds in lower tiers.
  for (const kind of kinds) await measure(makeEnv, taskIds, kind, episodes);
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) {
      const m = await measure(makeEnv, taskIds, kind, episodes);
      perSecond[kind].push(m.steps / m.wallSeconds);
      usPerStep[kind].push((m.cpuSeconds * 1e6) / m.steps);
    }
  }
  const cost = (kind: StoreKind) => median(usPerStep[kind]);
  return {
    [`${label}StepsPerSecondNoStore`]: median(perSecond.none),
    [`${label}StepsPerSecondMemory`]: median(perSecond.memory),
    [`${label}StepsPerSecondSqlite`]: median(perSecond.sqlite),
    [`${label}CpuUsPerStepNoStore`]: cost("none"),
    [`${label}MemoryWriteUsPerStep`]: cost("memory") - cost("none"),
    [`${label}SqliteWriteUsPerStep`]: cost("sqlite") - cost("none"),
    /** The memory store's cost per step relative to everything else the no-store run does. */
    [`${label}MemoryOverheadRatio`]: (cost("memory") - cost("none")) / cost("none"),
  };
}

/**
 * What the memory store's write cost is held against: FrozenLake's own `env.step`
 * (8x8 slippery, as in the env-step section), measured here: CPU µs per step, median of 5.
 */
async function frozenLakeEnvStepUs(): Promise<number> {
  await frozenLakeSteps(100_000);
  const us: number[] = [];
  for (let i = 0; i < 5; i++) us.push(1e6 / (await frozenLakeSteps(500_000)));
  return median(us);
}

export async function benchRollout(): Promise<Record<string, number>> {
  const frozenlake = await benchEnvironment(
    "frozenlake",
    () => createFrozenLakeEnvironment({}),
    ["8x8"],
    1000,
    5,
  );
  const envStepUs = await frozenLakeEnvStepUs();
  frozenlake.frozenlakeEnvStepCpuUs = envStepUs;
  /** The memory store's write cost in the loop (memory − no store) over the environment's own step. */
  frozenlake.frozenlakeMemoryWriteOverEnvStep = (frozenlake.frozenlakeMemoryWriteUsPerStep ?? 0) / envStepUs;
  // The store's own calls timed alone, like env.step (the target: the memory store costs at most the
  // environment, so this ratio at most 1).
  const calls = await memoryStoreCallsUs();
  frozenlake.frozenlakeMemoryStoreCallsUsPerStep = calls.usPerStep;
  frozenlake.frozenlakeMemoryStoreCallsOverEnvStep = calls.usPerStep / envStepUs;
  const reference = await benchEnvironment(
    "referenceEnv",
    () => createReferenceEnvironment(),
    ["ref"],
    4000,
    5,
  );
  return { ...frozenlake, ...reference };
}
