// The environment server under load (loopback only, bounded): 32 concurrent WebSocket sessions × 200
// FrozenLake steps and 8 concurrent web sessions × 20 steps. Every step must be answered, and the run
// store must hold each exactly once (checked: steps per trajectory are 0..n-1 and sum to what was sent).
// Reported: p50/p99 step latency over the wire beside the in-process step time of the same environment
// (their ratio is the server's overhead). Run by bench/run.ts (`npm run bench -- serve`).
import type { Environment } from "../src/core/index.ts";
import { createSystemRuntime } from "../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../src/envs/frozenlake/index.ts";
import { createStoreRecorder, startServeServer } from "../src/serve/index.ts";
import { connectServeSocket as connectWs } from "../src/serve/ws-client.ts";
import { createMemoryStore } from "../src/store/index.ts";

interface Load {
  family: string;
  sessions: number;
  steps: number;
  taskId: string;
  create: () => Promise<Environment>;
  /** The action of step k of session i, from the current observation. */
  action: (obs: Record<string, unknown>, i: number, k: number) => unknown;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Mean in-process step time (ms) of the same workload on one environment. */
async function inProcessStepMs(load: Load, steps: number): Promise<number> {
  const env = await load.create();
  let obs = (await env.reset({ taskId: load.taskId, seed: 0 })) as unknown as Record<string, unknown>;
  let total = 0;
  for (let k = 0; k < steps; k++) {
    const t0 = performance.now();
    const r = await env.step(load.action(obs, 0, k) as never);
    total += performance.now() - t0;
    obs = (r.terminated || r.truncated
      ? await env.reset({ taskId: load.taskId, seed: k })
      : r.observation) as unknown as Record<string, unknown>;
  }
  await env.close();
  return total / steps;
}

async function runLoad(load: Load): Promise<Record<string, number | boolean>> {
  const runtime = createSystemRuntime({ seed: "bench-serve" });
  const store = createMemoryStore();
  const probe = await load.create();
  const suite = probe.suite;
  await probe.close();
  const recorder = createStoreRecorder({
    store,
    runtime,
    tasks: suite.list(),
    config: {},
    codeVersion: "bench",
  });
  const server = await startServeServer({
    createEnvironment: load.create,
    suite,
    family: load.family,
    runtime,
    recorder,
    port: 0,
    maxSessions: load.sessions,
  });
  const latencies: number[] = [];
  let answered = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: load.sessions }, async (_, i) => {
      const c = await connectWs(server.url);
      let episode = 0;
      let frame = await c.request({
        type: "reset",
        data: { task_id: load.taskId, seed: i, episode_id: `s${i}-e${episode}` },
      });
      for (let k = 0; k < load.steps; k++) {
        const obs = (frame.data.observation ?? {}) as Record<string, unknown>;
        const t0 = performance.now();
        frame = await c.request({ type: "step", data: load.action(obs, i, k) });
        latencies.push(performance.now() - t0);
        if (frame.type !== "observation")
          throw new Error(`bench serve: step answered ${JSON.stringify(frame)}`);
        answered += 1;
        if (frame.data.done) {
          episode += 1;
          frame = await c.request({
            type: "reset",
            data: { task_id: load.taskId, seed: i * 1000 + episode, episode_id: `s${i}-e${episode}` },
          });
        }
      }
      c.socket.close();
      await c.closed;
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  await server.close();
  // Every step recorded exactly once, in order.
  let recorded = 0;
  let ordered = true;
  for (const t of store.iterateTrajectories(server.runId!)) {
    recorded += t.steps.length;
    ordered &&= t.steps.every((s, j) => s.index === j);
  }
  store.close();
  latencies.sort((a, b) => a - b);
  const inProcess = await inProcessStepMs(load, Math.min(200, load.steps * 2));
  const p50 = quantile(latencies, 0.5);
  return {
    [`${load.family}_sessions`]: load.sessions,
    [`${load.family}_steps_answered`]: answered,
    [`${load.family}_steps_recorded`]: recorded,
    [`${load.family}_none_lost_or_duplicated`]:
      recorded === answered && answered === load.sessions * load.steps && ordered,
    [`${load.family}_p50_step_ms`]: p50,
    [`${load.family}_p99_step_ms`]: quantile(latencies, 0.99),
    [`${load.family}_in_process_step_ms`]: inProcess,
    [`${load.family}_p50_over_in_process`]: p50 / inProcess,
    [`${load.family}_steps_per_s`]: answered / wallS,
  };
}

export async function benchServe(): Promise<Record<string, number | string | boolean>> {
  const moves = ["left", "down", "right", "up"] as const;
  /** `sessions` clients, 200 seeded moves each, on FrozenLake 8x8. */
  const lake = (family: string, sessions: number) =>
    runLoad({
      family,
      sessions,
      steps: 200,
      taskId: "8x8",
      create: async () => createFrozenLakeEnvironment({}),
      action: (_obs, i, k) => ({ type: "move", direction: moves[(i * 7 + k * 13 + ((k * k) >> 2)) % 4] }),
    });
  const frozen = await lake("frozenlake", 32);
  // One session alone: the wire's own overhead per step, without queueing behind 31 others.
  const single = await lake("frozenlake_single", 1);
  const { createWebEnvironment } = await import("../src/envs/web/index.ts");
  const web = await runLoad({
    family: "web",
    sessions: 8,
    steps: 20,
    taskId: "click-button",
    create: () => createWebEnvironment({}),
    // Waits do not end the episode; the task's horizon (5 steps) truncates it and the client resets.
    action: () => ({ type: "wait", ms: 0 }),
  });
  const pick = [
    "frozenlake_single_p50_step_ms",
    "frozenlake_single_p99_step_ms",
    "frozenlake_single_p50_over_in_process",
  ];
  return { ...frozen, ...Object.fromEntries(pick.map((k) => [k, single[k] as number])), ...web };
}
