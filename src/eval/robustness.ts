import type { Environment, Policy, Runtime } from "../core/index.ts";
import { generatorByName } from "../noise/catalog.ts";
import type { NoiseGenerator } from "../noise/generator.ts";
import { NoisyEnvironment, type PlannedNoiseEvent } from "../noise/noisy-environment.ts";
import type { RunStore } from "../store/contract.ts";
import { type EvalReport, evaluatePolicy, type RolloutSpec } from "./evaluate.ts";
import { meanOverTasks, passAtK } from "./pass-at-k.ts";
import type { PassRow, TaskRollouts } from "./pass-report.ts";

/** One evaluated policy (or a policy trained on one dataset), under a label. */
export interface RobustnessEntrant {
  label: string;
  policy: Policy;
}

export interface RobustnessSpec extends RolloutSpec {
  /** Run id prefix: each entrant × condition gets its own run `<prefix>-<label>-clean|noisy`. */
  runIdPrefix: string;
  /** The precomputed evaluation schedule: task id → its events (one held-out event per task). */
  schedule: ReadonlyMap<string, ReadonlyArray<PlannedNoiseEvent>>;
}

/** Clean vs noisy pass@k of the tasks that one generator hit. */
export interface GeneratorRow {
  generator: string;
  tier: string;
  tasks: number;
  clean: Record<string, number>;
  noisy: Record<string, number>;
}

export interface EntrantReport {
  label: string;
  policy: string;
  clean: { runId: string; pass: PassRow[]; perTask: TaskRollouts[] };
  noisy: { runId: string; pass: PassRow[]; perTask: TaskRollouts[] };
  /** Per noise tier (T1/T2/T3) and per generator: the tasks that got it, clean vs noisy. */
  perNoiseTier: GeneratorRow[];
  perGenerator: GeneratorRow[];
  /** Noisy episodes whose event fired / was recovered (the rest ended before it fired or never recovered). */
  noise: { episodes: number; fired: number; recovered: number };
}

export interface RobustnessReport {
  entrants: EntrantReport[];
  /** The cross-evaluation table: one row per entrant, pass@k clean and noisy for all tasks. */
  cross: Array<{ label: string; clean: Record<string, number>; noisy: Record<string, number> }>;
  interrupted: boolean;
}

/** The rollout part of a robustness spec (each entrant × condition plays exactly this). */
function rolloutsOf(spec: RobustnessSpec): RolloutSpec {
  const { tasks, rollouts, temperature, seed, ks, maxSteps } = spec;
  return { tasks, rollouts, temperature, seed, ks, ...(maxSteps ? { maxSteps } : {}) };
}

function passOf(rows: ReadonlyArray<TaskRollouts>, ks: ReadonlyArray<number>): Record<string, number> {
  const usable = rows.filter((r) => r.n > 0);
  const out: Record<string, number> = {};
  for (const k of ks) out[k] = meanOverTasks(usable.map((r) => passAtK(r.n, r.c, k)));
  return out;
}

/** Clean vs noisy pass@k of the tasks grouped by `nameOf` their scheduled generator. */
function groupRows(
  generatorOf: (taskId: string) => NoiseGenerator | undefined,
  nameOf: (g: NoiseGenerator) => string,
  clean: ReadonlyArray<TaskRollouts>,
  noisy: ReadonlyArray<TaskRollouts>,
  ks: ReadonlyArray<number>,
): GeneratorRow[] {
  const groups = new Map<string, { tier: string; ids: Set<string> }>();
  for (const r of noisy) {
    const gen = generatorOf(r.taskId);
    if (!gen) continue;
    const g = groups.get(nameOf(gen)) ?? { tier: gen.tier, ids: new Set<string>() };
    g.ids.add(r.taskId);
    groups.set(nameOf(gen), g);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, g]) => ({
      generator: name,
      tier: g.tier,
      tasks: g.ids.size,
      clean: passOf(
        clean.filter((r) => g.ids.has(r.taskId)),
        ks,
      ),
      noisy: passOf(
        noisy.filter((r) => g.ids.has(r.taskId)),
        ks,
      ),
    }));
}

/**
 * Clean and noisy evaluation of every entrant on the same tasks, rollouts and episode seeds; the
 * noisy condition fires the precomputed schedule (the same events for every entrant: common random
 * numbers). Reports pass@k side by side per split and tier, per noise tier and generator, and the
 * cross-evaluation table.
 */
export async function evaluateRobustness(
  deps: {
    env: Environment;
    runtime: Runtime;
    store: RunStore;
    signal?: AbortSignal;
    onEpisode?: (done: number) => void;
    /** Called before each entrant × condition run, so the caller can create the run record. */
    onRun?: (run: { runId: string; label: string; condition: "clean" | "noisy" }) => void;
  },
  entrants: ReadonlyArray<RobustnessEntrant>,
  spec: RobustnessSpec,
): Promise<RobustnessReport> {
  const noisyEnv = new NoisyEnvironment(deps.env, {
    scheduleFor: (taskId) => spec.schedule.get(taskId) ?? [],
  });
  /** The generator of a task's (first) scheduled event. */
  const generatorOf = (taskId: string) => {
    const e = spec.schedule.get(taskId)?.[0];
    return e ? generatorByName(e.generator) : undefined;
  };
  const reports: EntrantReport[] = [];
  let done = 0;
  let interrupted = false;
  for (const entrant of entrants) {
    const runs: Partial<Record<"clean" | "noisy", EvalReport>> = {};
    const noise = { episodes: 0, fired: 0, recovered: 0 };
    for (const condition of ["clean", "noisy"] as const) {
      const runId = `${spec.runIdPrefix}-${entrant.label}-${condition}`;
      deps.onRun?.({ runId, label: entrant.label, condition });
      const env = condition === "clean" ? deps.env : noisyEnv;
      runs[condition] = await evaluatePolicy(
        {
          env,
          policy: entrant.policy,
          runtime: deps.runtime,
          store: deps.store,
          ...(deps.signal ? { signal: deps.signal } : {}),
          onEpisode: () => {
            done += 1;
            deps.onEpisode?.(done);
          },
        },
        { ...rolloutsOf(spec), runId },
      );
      if (condition === "noisy") {
        for (const t of deps.store.iterateTrajectories(runId, { status: "complete" })) {
          noise.episodes += 1;
          const metrics = t.outcome?.metrics ?? {};
          if ((metrics.noiseEvents ?? 0) > 0) noise.fired += 1;
          if ((metrics.noiseRecovered ?? 0) > 0) noise.recovered += 1;
        }
      }
      if (runs[condition]?.interrupted) interrupted = true;
      if (interrupted) break;
    }
    if (interrupted || !runs.clean || !runs.noisy) break;
    const clean = runs.clean;
    const noisy = runs.noisy;
    reports.push({
      label: entrant.label,
      policy: entrant.policy.name,
      clean: { runId: clean.runId, pass: clean.pass, perTask: clean.perTask },
      noisy: { runId: noisy.runId, pass: noisy.pass, perTask: noisy.perTask },
      perNoiseTier: groupRows(generatorOf, (g) => g.tier, clean.perTask, noisy.perTask, spec.ks),
      perGenerator: groupRows(generatorOf, (g) => g.name, clean.perTask, noisy.perTask, spec.ks),
      noise,
    });
  }
  return {
    entrants: reports,
    cross: reports.map((r) => ({
      label: r.label,
      clean: passOf(r.clean.perTask, spec.ks),
      noisy: passOf(r.noisy.perTask, spec.ks),
    })),
    interrupted,
  };
}
