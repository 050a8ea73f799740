import {
  type Candidate,
  createRandom,
  type Environment,
  type FingerprintOptions,
  fingerprintAction,
  type Policy,
  type StepRecord,
  type Task,
  type Trajectory,
} from "../core/index.ts";

/** Shannon entropy in bits of the fingerprint distribution of candidates (invalid output is one bucket). */
export function fingerprintEntropyBits(
  candidates: ReadonlyArray<Candidate>,
  options: FingerprintOptions,
): number {
  const counts = new Map<string, number>();
  for (const c of candidates) {
    const fp = fingerprintAction(c.action, options);
    counts.set(fp, (counts.get(fp) ?? 0) + 1);
  }
  const n = candidates.length;
  let h = 0;
  for (const count of counts.values()) {
    const p = count / n;
    h -= p * Math.log2(p);
  }
  return h === 0 ? 0 : h;
}

export interface EntropyOptions {
  /** States sampled from the recorded steps. */
  states: number;
  /** Samples per state (SEEDS.md: K = 8 at T = 1). */
  samples: number;
  temperature: number;
  seed: string;
  gridPx: number;
  typeTextChars: number;
}

export interface EntropyReport {
  states: number;
  samples: number;
  meanBits: number;
  perState: Array<{ taskId: string; trajectoryId: string; stepIndex: number; bits: number; buckets: number }>;
}

/**
 * Per-state action entropy: K samples at temperature T on a seeded sample of recorded states, entropy
 * over behaviour fingerprints in bits.
 */
export async function actionEntropy(
  policy: Policy,
  env: Environment,
  trajectories: ReadonlyArray<Trajectory>,
  tasks: ReadonlyMap<string, Task>,
  options: EntropyOptions,
): Promise<EntropyReport> {
  const pool: Array<{ t: Trajectory; s: StepRecord; i: number }> = [];
  for (const t of trajectories) {
    t.steps.forEach((s, i) => {
      pool.push({ t, s, i });
    });
  }
  const chosen = createRandom("entropy", options.seed).shuffle(pool).slice(0, options.states);
  chosen.sort((a, b) => (a.t.id < b.t.id ? -1 : a.t.id > b.t.id ? 1 : a.i - b.i));
  const perState: EntropyReport["perState"] = [];
  for (const { t, s, i } of chosen) {
    const task = tasks.get(t.taskId);
    if (!task) continue;
    const history = t.steps
      .slice(0, i)
      .map((h) => ({ observation: h.observation, action: h.action, raw: h.raw }));
    // The environment's solver, on demand: replay the trajectory up to this state first.
    const oracle = env.oracleAction
      ? async () => {
          await env.reset({ taskId: t.taskId, seed: t.seed });
          for (const h of t.steps.slice(0, i)) if (h.action) await env.step(h.action);
          return env.oracleAction ? env.oracleAction() : null;
        }
      : undefined;
    const proposal = await policy.propose(
      { task, observation: s.observation, history, stepIndex: s.index, ...(oracle ? { oracle } : {}) },
      {
        n: options.samples,
        temperature: options.temperature,
        random: createRandom("entropy", options.seed, t.id, s.index),
      },
    );
    const fps = new Set(proposal.candidates.map((c) => fingerprintAction(c.action, options)));
    perState.push({
      taskId: t.taskId,
      trajectoryId: t.id,
      stepIndex: s.index,
      bits: fingerprintEntropyBits(proposal.candidates, options),
      buckets: fps.size,
    });
  }
  const meanBits = perState.length === 0 ? 0 : perState.reduce((a, p) => a + p.bits, 0) / perState.length;
  return { states: perState.length, samples: options.samples, meanBits, perState };
}
