import { z } from "zod";
import { createRuntime, createSequentialIds, type Task, UserError } from "../../core/index.ts";
import { stateViewerFor } from "../../envs/state-viewers.ts";
import { runEpisodes } from "../../rollout/index.ts";
import { createEnvironmentFromConfig, selectTasks } from "../../runner/environments.ts";
import { createPolicyFromConfig } from "../../runner/policies.ts";
import { createMemoryStore } from "../../store/index.ts";
import { importTraces, type RunImportCounts, type TraceStep } from "../../worldmodel/index.ts";
import { createMixedPolicy } from "./mixed-policy.ts";

/** One batch of episodes: a base policy, mixed with random actions at `randomRate` per step. */
export const RecordingBatchSchema = z
  .object({
    policy: z.enum(["random", "oracle", "heuristic", "template"]),
    randomRate: z.number().min(0).max(1).default(0),
    episodes: z.number().int().positive(),
  })
  .strict();
export type RecordingBatch = z.input<typeof RecordingBatchSchema>;

/** What to record for one family setting (e.g. FrozenLake slippery with slipRatio [0, 1]). */
export const FamilyRecordingSchema = z
  .object({
    /** The setting's name, e.g. `frozenlake-symmetric`; it prefixes run and episode ids. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    family: z.enum(["frozenlake", "chess", "web", "terminal"]),
    envOptions: z.record(z.string(), z.unknown()).default({}),
    /** Task ids, or "all" tasks of the suite (`tier` filters them further). */
    tasks: z.union([z.literal("all"), z.array(z.string().min(1)).min(1)]).default("all"),
    tier: z.enum(["short", "long"]).optional(),
    batches: z.array(RecordingBatchSchema).min(1),
    maxSteps: z.number().int().positive().optional(),
    seed: z.string().min(1),
  })
  .strict();
export type FamilyRecordingInput = z.input<typeof FamilyRecordingSchema>;
export type FamilyRecording = z.output<typeof FamilyRecordingSchema>;

export interface RecordedTraces {
  name: string;
  family: string;
  /** Every batch's steps, with `state`/`nextState` from the family's state viewer. */
  steps: TraceStep[];
  tasks: Task[];
  runs: RunImportCounts[];
  envOptions: Record<string, unknown>;
}

/**
 * Plays the batches of one family setting through the runner's environment and policies
 * (`runEpisodes` into a memory store) and imports them as trace steps with states. Seeds are fixed:
 * run `<name>-<i>` of batch i plays with the root seed `<seed>|<i>`, so the same spec gives the same trace.
 */
export async function recordFamilyTraces(input: FamilyRecordingInput): Promise<RecordedTraces> {
  const parsed = FamilyRecordingSchema.safeParse(input);
  if (!parsed.success)
    throw new UserError(
      "experiment.bad_recording",
      `recording traces: invalid spec (${parsed.error.issues.map((i) => `${i.path.join(".") || "(spec)"}: ${i.message}`).join("; ")}). Fix: give a name, a family, batches with a policy and episodes, and a seed`,
      { details: { input } },
    );
  const spec = parsed.data;
  const viewer = stateViewerFor(spec.family);
  if (!viewer)
    throw new UserError(
      "experiment.no_viewer",
      `recording traces for ${spec.name}: family ${spec.family} has no state viewer. Fix: choose frozenlake, chess, web or terminal`,
    );
  const seq = createSequentialIds();
  const runtime = createRuntime({
    seed: spec.seed,
    ids: { next: (prefix) => `${spec.name}_${seq.next(prefix)}` },
  });
  const env = await createEnvironmentFromConfig(
    { env: spec.family, envOptions: spec.envOptions, suite: "builtin" },
    runtime,
  );
  const store = createMemoryStore();
  try {
    const tasks = selectTasks(env.suite, spec.tasks).filter((t) => !spec.tier || t.tier === spec.tier);
    if (tasks.length === 0)
      throw new UserError(
        "experiment.no_tasks",
        `recording traces for ${spec.name}: no ${spec.tier ?? ""} task selected. Fix: name tasks of the suite`,
      );
    const runIds: string[] = [];
    for (const [i, batch] of spec.batches.entries()) {
      const runId = `${spec.name}-${i}`;
      runIds.push(runId);
      store.createRun({
        id: runId,
        kind: "run",
        seed: `${spec.seed}|${i}`,
        config: {},
        codeVersion: "experiment",
        createdAtMs: 0,
      });
      for (const t of tasks) store.putTask(runId, t);
      const base = await createPolicyFromConfig({ policy: batch.policy, env: spec.family }, runtime);
      const policy = createMixedPolicy(base, batch.randomRate);
      try {
        await runEpisodes(
          { env, policy, runtime, store },
          {
            runId,
            tasks,
            episodes: batch.episodes,
            seed: `${spec.seed}|${i}`,
            ...(spec.maxSteps === undefined ? {} : { maxSteps: spec.maxSteps }),
            temperature: 1,
          },
        );
      } finally {
        await policy.close?.();
      }
    }
    const { steps, runs } = importTraces(store, runIds, { viewer, tasks });
    return { name: spec.name, family: spec.family, steps, tasks, runs, envOptions: spec.envOptions };
  } finally {
    await env.close();
  }
}
