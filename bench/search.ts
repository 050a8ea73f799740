// Search throughput: environment steps per second of ENVS search on built-in web tasks with 1, 2 and 4
// live browser contexts, and the share of time spent reaching children's states (restore or replay):
// `replayShare`, the share of the search's wall time with at least one reach in flight (any tree);
// `replayShareTreeSum`, the trees' own reach times summed (the figure reported before, which would
// count twice a time when two trees reach at once); `reachEnvShare`, the reaches' summed durations over the
// environments' time (live environments × wall time); `rootStartShare`, the share with a tree's root
// starting its episode (a reset: not a child's reach, and not in the figures above).
// A second pass hides the snapshot capability so every child is reached by reset + replay. How the
// children's states were reached is reported too: restores in the live page or on a freshly reset
// page, and episodes started in a new browser context or in the previous episode's (reused). Where the
// time goes: CPU ms per environment step by process (node, Chromium's browser process, renderers, GPU
// process, utilities; from /proc), the cores they keep busy, and the environment operations in flight
// (time-weighted mean, and the share of the search's time with at least 1..4 in flight), and how many
// nodes began reaching their states while the round before still moved (`reachedAhead`).
import { createRuntime, type Environment } from "../src/core/index.ts";
import { systemClock } from "../src/core/system-runtime.ts";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../src/envs/web/index.ts";
import { createHeuristicWebPolicy } from "../src/policies/heuristic-web/heuristic-web-policy.ts";
import { runSearch, SearchConfigSchema } from "../src/search/index.ts";
import { createMemoryStore } from "../src/store/index.ts";
import { cpuSample, cpuSpent, InFlight } from "./search-probe.ts";

const TASKS = ["login-user", "enter-password", "click-checkboxes", "settings-toggles"];

function hideSnapshot(env: Environment): Environment {
  return {
    family: env.family,
    suite: env.suite,
    capabilities: { ...env.capabilities, snapshot: false },
    reset: (o) => env.reset(o),
    step: (a) => env.step(a),
    evaluate: () => env.evaluate(),
    fingerprint: () => env.fingerprint(),
    close: () => env.close(),
  };
}

async function measure(pool: BrowserPool, liveEnvs: number, replayOnly: boolean) {
  const envs: Environment[] = [];
  const webEnvs: WebEnvironment[] = [];
  for (let i = 0; i < liveEnvs; i++) {
    const env = await createWebEnvironment({ observation: { screenshot: false } }, { pool });
    webEnvs.push(env);
    envs.push(replayOnly ? hideSnapshot(env) : env);
  }
  const inFlight = new InFlight();
  const tracked = envs.map((e) => inFlight.track(e));
  const store = createMemoryStore();
  store.createRun({
    id: "bench",
    kind: "search",
    seed: "b",
    config: {},
    codeVersion: "bench",
    createdAtMs: 0,
  });
  const tasks = TASKS.map((id) => (envs[0] as Environment).suite.get(id));
  const config = SearchConfigSchema.parse({ maxLiveEnvs: liveEnvs, maxNodesPerTree: 16 });
  const cpuBefore = cpuSample();
  const start = performance.now();
  const result = await runSearch(
    {
      envs: tracked,
      policy: createHeuristicWebPolicy(),
      runtime: createRuntime({ seed: "b", clock: systemClock }),
      store,
    },
    { runId: "bench", seed: "b", tasks, config },
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSpent(cpuBefore, cpuSample());
  const flight = inFlight.figures();
  const sum = (f: (e: WebEnvironment) => number) => webEnvs.reduce((a, e) => a + f(e), 0);
  const ways = {
    inPageRestores: sum((e) => e.restoreStats().inPage),
    freshRestores: sum((e) => e.restoreStats().fresh),
    contextsOpened: sum((e) => e.contextStats().opened),
    contextsReused: sum((e) => e.contextStats().reused),
  };
  for (const e of envs) await e.close();
  const envSteps = result.tasks.reduce((a, t) => a + t.counters.envSteps, 0);
  // Per-tree reach time summed over the trees (two trees reaching at once would count twice).
  const treeReachMs = result.tasks.reduce((a, t) => a + t.counters.replayMs, 0);
  const reachedAhead = result.tasks.reduce((a, t) => a + t.counters.reachedAhead, 0);
  const cpuMs = Object.values(cpu).reduce((a, b) => a + b, 0);
  const perStep: Record<string, number> = {};
  for (const [kind, ms] of Object.entries(cpu)) if (ms > 0) perStep[`cpuMsPerStep_${kind}`] = ms / envSteps;
  return {
    stepsPerSecond: envSteps / seconds,
    replayShare: result.reach.wallMs / 1000 / seconds,
    replayShareTreeSum: treeReachMs / 1000 / seconds,
    reachEnvShare: result.reach.envMs / 1000 / seconds / liveEnvs,
    rootStartShare: result.starts.wallMs / 1000 / seconds,
    reachedAhead,
    envSteps,
    ...ways,
    cpuMsPerStep: cpuMs / envSteps,
    coresBusy: cpuMs / 1000 / seconds,
    ...perStep,
    inFlightMean: flight.mean,
    ...Object.fromEntries(flight.atLeast.map((share, i) => [`inFlightAtLeast${i + 1}Share`, share])),
  };
}

/** Live environment counts measured (the first is the speedups' base), and the interleaved passes over them. */
const LIVE = [1, 2, 4];
const PASSES = 3;

type Measured = Awaited<ReturnType<typeof measure>>;

/** The pass with the median steps per second. */
function medianRun(runs: ReadonlyArray<Measured>): Measured {
  const sorted = [...runs].sort((a, b) => a.stepsPerSecond - b.stepsPerSecond);
  return sorted[Math.floor(sorted.length / 2)] as Measured;
}

export async function benchSearch(): Promise<Record<string, number>> {
  const pool = new BrowserPool();
  const out: Record<string, number> = {};
  try {
    await measure(pool, 1, false); // warm-up: browser launch, JIT
    // Interleaved passes, so that machine load affects every count alike; each count reports its
    // median pass (by steps per second), the speedups are those of the medians, and the passes' own
    // speedups give the spread.
    const runs: Measured[][] = LIVE.map(() => []);
    for (let pass = 0; pass < PASSES; pass++)
      for (const [i, live] of LIVE.entries()) runs[i]?.push(await measure(pool, live, false));
    const base = runs[0] as Measured[];
    const baseMedian = medianRun(base);
    for (const [i, live] of LIVE.entries()) {
      const own = runs[i] as Measured[];
      const { envSteps: _steps, ...r } = medianRun(own);
      for (const [name, value] of Object.entries(r)) out[`${name}_${live}ctx`] = value;
      if (own === base) continue;
      out[`speedup_${live}ctx`] = r.stepsPerSecond / baseMedian.stepsPerSecond;
      const perPass = own.map((m, p) => m.stepsPerSecond / (base[p] as Measured).stepsPerSecond);
      out[`speedup_${live}ctx_passMin`] = Math.min(...perPass);
      out[`speedup_${live}ctx_passMax`] = Math.max(...perPass);
    }
    const replay = await measure(pool, 2, true);
    out.stepsPerSecond_2ctx_replayOnly = replay.stepsPerSecond;
    out.replayShare_2ctx_replayOnly = replay.replayShare;
  } finally {
    await pool.close();
  }
  return out;
}
