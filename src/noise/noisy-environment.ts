import { z } from "zod";
import {
  type Action,
  type Capabilities,
  createRandom,
  type Environment,
  type EnvironmentSnapshot,
  EnvironmentSnapshotSchema,
  isPerturbable,
  type Observation,
  type Perturbable,
  type PerturbationStatus,
  type ResetOptions,
  type StepResult,
  type TaskSuite,
  UserError,
  type VerifierResult,
} from "../core/index.ts";
import { generatorByName } from "./catalog.ts";
import type { NoiseGenerator } from "./generator.ts";

/** One planned event: fires right after the agent's `step`-th action (0: right after reset). */
export const PlannedNoiseEventSchema = z.object({
  id: z.string(),
  step: z.number().int(),
  generator: z.string(),
  seed: z.number().int(),
});
export type PlannedNoiseEvent = z.infer<typeof PlannedNoiseEventSchema>;

export const NoiseEventRecordSchema = z.object({
  id: z.string(),
  generator: z.string(),
  tier: z.enum(["T1", "T2", "T3"]),
  cost: z.number().int(),
  /** Seed the concrete effect was built from (`generator.build(createRandom("noise-event", seed))`). */
  seed: z.number().int(),
  /** Step it was scheduled for and applied at (after the agent's `step`-th action). */
  step: z.number().int().nonnegative(),
  /** Set when the environment could not apply it here (e.g. no visible target); nothing changed. */
  refused: z.string().optional(),
  /** Step at which it was first seen recovered (gone, dismissed, refocused, moved, expired). */
  recoveredAt: z.number().int().nonnegative().nullable(),
  endedBy: z.string().optional(),
  /** With `verifyNonSabotage`: whether the verifier-visible state digest was unchanged by applying it. */
  verifierUnchanged: z.boolean().optional(),
});
/** What fired, when, and when it was recovered: stored in `info.noise` of the step it fired / recovered at. */
export type NoiseEventRecord = z.infer<typeof NoiseEventRecordSchema>;

const NoiseSnapshotSchema = z.object({
  inner: z.unknown(),
  noise: z.object({
    steps: z.number().int().nonnegative(),
    schedule: z.array(PlannedNoiseEventSchema),
    log: z.array(NoiseEventRecordSchema),
  }),
});

export interface NoisyEnvironmentOptions {
  /** The schedule of an episode, from its task and seed (used when no `setSchedule` is pending). */
  scheduleFor?: (taskId: string, seed: number) => ReadonlyArray<PlannedNoiseEvent>;
  /** Read the verifier digest before and after every perturbation and record whether it changed. */
  verifyNonSabotage?: boolean;
}

/**
 * Wraps a perturbable environment and fires a noise schedule into its episodes: after the agent's
 * t-th action the events of step t are applied, so the next observation shows them; every later step
 * first advances the perturbations (typing goes on, timers count down), then checks which events were
 * recovered. Events, their steps and recoveries are reported in `info.noise` of each step and in the
 * outcome's metrics; `events()` returns the episode's log. Snapshots carry the log and the schedule,
 * and a replay of the same actions fires the same events, so search can branch noisy episodes.
 */
export class NoisyEnvironment implements Environment {
  readonly family: string;
  readonly capabilities: Capabilities;
  readonly suite: TaskSuite;
  private readonly inner: Environment & Perturbable;
  private readonly options: NoisyEnvironmentOptions;
  private pending: ReadonlyArray<PlannedNoiseEvent> | null = null;
  private schedule: PlannedNoiseEvent[] = [];
  private log: NoiseEventRecord[] = [];
  private steps = 0;
  private ended = false;

  constructor(inner: Environment, options: NoisyEnvironmentOptions = {}) {
    if (!isPerturbable(inner)) {
      throw new UserError(
        "noise.env_not_perturbable",
        `the ${inner.family} environment cannot be perturbed; noise needs the web environment`,
      );
    }
    this.inner = inner;
    this.options = options;
    this.family = inner.family;
    this.capabilities = inner.capabilities;
    this.suite = inner.suite;
  }

  /** The schedule for the next `reset` or `restore` (null: back to `scheduleFor`). */
  setSchedule(events: ReadonlyArray<PlannedNoiseEvent> | null): void {
    this.pending = events;
  }

  /** The current episode's events so far (fired ones, with recovery). */
  events(): NoiseEventRecord[] {
    return this.log.map((e) => ({ ...e }));
  }

  async reset(options: ResetOptions): Promise<Observation> {
    const observation = await this.inner.reset(options);
    this.schedule = this.takeSchedule(options.taskId, options.seed);
    this.log = [];
    this.steps = 0;
    this.ended = false;
    return (await this.fire(0)).length > 0 ? this.inner.observeNow() : observation;
  }

  async step(action: Action): Promise<StepResult> {
    if (this.ended) return this.inner.step(action);
    const result = await this.inner.step(action);
    this.steps += 1;
    const ended = result.terminated || result.truncated;
    const changed = !ended && this.log.some((e) => !e.refused) && (await this.inner.advancePerturbations());
    const recovered = await this.trackRecovery(result.observation.error === undefined);
    const fired = ended ? [] : await this.fire(this.steps);
    if (ended) this.ended = true;
    const observation = changed || fired.length > 0 ? await this.inner.observeNow() : result.observation;
    if (result.observation.error && !observation.error) observation.error = result.observation.error;
    const noise =
      fired.length > 0 || recovered.length > 0
        ? { noise: { fired: fired.map((e) => ({ ...e })), recovered: recovered.map((e) => ({ ...e })) } }
        : {};
    return { ...result, observation, info: { ...result.info, ...noise } };
  }

  async evaluate(): Promise<VerifierResult> {
    const result = await this.inner.evaluate();
    const applied = this.log.filter((e) => !e.refused);
    return {
      ...result,
      metrics: {
        ...result.metrics,
        noiseEvents: applied.length,
        noiseRecovered: applied.filter((e) => e.recoveredAt !== null).length,
      },
    };
  }

  fingerprint(): Promise<string> {
    return this.inner.fingerprint();
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    if (!this.inner.snapshot)
      throw new UserError("noise.snapshot_unsupported", "the environment has no snapshots");
    const snap = await this.inner.snapshot();
    return {
      ...snap,
      // A copy: the live log keeps growing (and recovering) after the snapshot.
      state: {
        inner: snap.state,
        noise: JSON.parse(JSON.stringify({ steps: this.steps, schedule: this.schedule, log: this.log })),
      },
    };
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = EnvironmentSnapshotSchema.safeParse(snapshot);
    const parsed = NoiseSnapshotSchema.safeParse(snap.success ? snap.data.state : undefined);
    if (!snap.success || !parsed.success || !this.inner.restore) {
      throw new UserError(
        "noise.snapshot_invalid",
        `noisy ${this.family} restore got something that is not a snapshot of a noisy environment; pass a value from snapshot()`,
      );
    }
    const observation = await this.inner.restore({ ...snap.data, state: parsed.data.inner });
    const saved = parsed.data.noise;
    this.steps = saved.steps;
    this.log = saved.log.map((e) => ({ ...e }));
    this.ended = false;
    // Events already fired are part of the restored state; the rest come from the pending schedule.
    const fired = saved.schedule.filter((e) => e.step <= saved.steps);
    const future = this.pending
      ? this.pending.filter((e) => e.step > saved.steps)
      : saved.schedule.filter((e) => e.step > saved.steps);
    this.pending = null;
    this.schedule = [...fired, ...future];
    return observation;
  }

  oracleAction(): Promise<Action | null> {
    return this.inner.oracleAction ? this.inner.oracleAction() : Promise.resolve(null);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  // ------------------------------------------------------------------ internals

  private takeSchedule(taskId: string, seed: number): PlannedNoiseEvent[] {
    const planned = this.pending ?? this.options.scheduleFor?.(taskId, seed) ?? [];
    this.pending = null;
    for (const e of planned) {
      if (!generatorByName(e.generator)) {
        throw new UserError(
          "noise.unknown_generator",
          `schedule event ${e.id} names generator "${e.generator}", which is not in the catalog (rehearsal noise list)`,
        );
      }
    }
    return [...planned].sort((a, b) => a.step - b.step);
  }

  private async fire(step: number): Promise<NoiseEventRecord[]> {
    const due = this.schedule.filter((e) => e.step === step);
    const fired: NoiseEventRecord[] = [];
    for (const e of due) {
      const generator = generatorByName(e.generator) as NoiseGenerator;
      const effect = generator.build(createRandom("noise-event", e.seed));
      const before = this.options.verifyNonSabotage ? await this.inner.verifierDigest() : null;
      const refusal = await this.inner.applyPerturbation({ id: e.id, effect });
      const record: NoiseEventRecord = {
        id: e.id,
        generator: generator.name,
        tier: generator.tier,
        cost: generator.cost,
        seed: e.seed,
        step,
        recoveredAt: null,
        ...(refusal ? { refused: refusal.reason } : {}),
      };
      if (before !== null) record.verifierUnchanged = before === (await this.inner.verifierDigest());
      this.log.push(record);
      fired.push(record);
    }
    return fired;
  }

  /** Marks events recovered: gone per the environment's status, or (next_action ones) at a clean action. */
  private async trackRecovery(actionApplied: boolean): Promise<NoiseEventRecord[]> {
    const open = this.log.filter((e) => !e.refused && e.recoveredAt === null);
    if (open.length === 0) return [];
    const status = new Map<string, PerturbationStatus>();
    for (const s of await this.inner.perturbationStatus()) status.set(s.id, s);
    const recovered: NoiseEventRecord[] = [];
    for (const e of open) {
      const generator = generatorByName(e.generator) as NoiseGenerator;
      // Compositional widgets continue under `<id>+`: recovered when the whole chain is gone.
      const chain = [...status.values()].filter((s) => s.id === e.id || s.id.startsWith(`${e.id}+`));
      const gone = chain.length > 0 && chain.every((s) => !s.active || s.moved === true);
      const done = generator.recoveredBy === "next_action" ? actionApplied : gone;
      if (!done) continue;
      e.recoveredAt = this.steps;
      const last = chain[chain.length - 1];
      if (last?.endedBy) e.endedBy = last.endedBy;
      recovered.push(e);
    }
    return recovered;
  }
}
