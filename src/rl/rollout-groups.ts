import { z } from "zod";
import { stableSeed, type Task, type Trajectory } from "../core/index.ts";
import { type BatchDeps, type EpisodeResult, runEpisodes } from "../rollout/index.ts";
import { type AdvantageOptions, AdvantageOptionsSchema, groupAdvantages } from "./advantages.ts";
import { groupRewards, type RewardInput, type RewardOptions, RewardOptionsSchema } from "./rewards/index.ts";
import { countWmCalls } from "./wm-transcript.ts";

/** What `rl rollouts` plays: G members per task, from one initial state per task, within T_max steps. */
export const RolloutGroupOptionsSchema = z
  .object({
    /** G, the members of each task's group. */
    group: z.number().int().min(1).max(1024).default(8),
    /** A group left with fewer scorable members (after infrastructure failures) is dropped and counted. */
    minGroup: z.number().int().min(1).default(2),
    /** T_max, the step limit of every member (and L_max of the length reward unless that is set). */
    tMax: z.number().int().positive().default(15),
    rewards: RewardOptionsSchema.prefault({}),
    advantages: AdvantageOptionsSchema.prefault({}),
  })
  .strict();
export type RolloutGroupOptions = z.infer<typeof RolloutGroupOptionsSchema>;

/** The metadata every member's trajectory is stored with (`meta.rl`). */
export const GroupMetaSchema = z.object({
  groupId: z.string(),
  member: z.number().int().nonnegative(),
  groupSeed: z.number().int().nonnegative(),
});
export type GroupMeta = z.infer<typeof GroupMetaSchema>;

/** One task's group id in a run. */
export function groupIdOf(runId: string, taskId: string): string {
  return `${runId}:${taskId}`;
}

/** The one episode seed of every member of a task's group: a stable 31-bit hash of run seed and task. */
export function groupSeed(runSeed: string, taskId: string): number {
  return stableSeed(runSeed, taskId, "rl-group") & 0x7fffffff;
}

export interface RolloutGroupsSpec {
  runId: string;
  tasks: ReadonlyArray<Task>;
  seed: string;
  temperature: number;
  options: RolloutGroupOptions;
}

/**
 * Plays G members of every task's group through the rollout loop (`runEpisodes`), each recorded as a
 * trajectory of `runId` with `meta.rl` (group id, member index, group seed). All members of a group
 * start from the same seed (so the same initial state, and the same noise schedule under a noisy
 * environment, which draws it from the episode seed); each member's policy stream is its own.
 */
export async function playRolloutGroups(deps: BatchDeps, spec: RolloutGroupsSpec): Promise<EpisodeResult[]> {
  const { results } = await runEpisodes(deps, {
    runId: spec.runId,
    tasks: spec.tasks,
    episodes: spec.options.group,
    seed: spec.seed,
    temperature: spec.temperature,
    maxSteps: spec.options.tMax,
    seedOf: (taskId) => groupSeed(spec.seed, taskId),
    metaOf: (taskId, member): { rl: GroupMeta } => ({
      rl: { groupId: groupIdOf(spec.runId, taskId), member, groupSeed: groupSeed(spec.seed, taskId) },
    }),
  });
  return results;
}

/**
 * A trajectory's own `<call_wm>` count, summed over its steps: a step's `info.wmCalls` where it is a
 * number, else the `<call_wm>` blocks of its raw policy output (as `wm-lookahead` writes them).
 * Counted from each trajectory alone, so the counter starts at 0 for every episode.
 */
export function trajectoryWmCalls(t: Pick<Trajectory, "steps">): number {
  let n = 0;
  for (const s of t.steps) {
    const v = s.info.wmCalls;
    if (typeof v === "number") n += Number.isFinite(v) && v > 0 ? v : 0;
    else n += countWmCalls(s.raw);
  }
  return n;
}

export const ScoredMemberSchema = z.object({
  trajectoryId: z.string(),
  member: z.number().int().nonnegative(),
  success: z.boolean(),
  length: z.number().int().nonnegative(),
  wmCalls: z.number().nonnegative(),
  parts: z.object({
    success: z.number(),
    length: z.number(),
    wm: z.number(),
    lengthLambda: z.number(),
    wmLambda: z.number(),
  }),
  reward: z.number().finite(),
  advantage: z.number().finite(),
  /** With `--success judge`: the verifier's verdict, kept beside the judged `success` as a metric. */
  verifierSuccess: z.boolean().optional(),
});
export type ScoredMember = z.infer<typeof ScoredMemberSchema>;

const BudgetSchema = z.object({ reference: z.number(), maximum: z.number(), budget: z.number() });

export const ScoredGroupSchema = z.object({
  groupId: z.string(),
  taskId: z.string(),
  groupSeed: z.number().int().nonnegative(),
  stats: z.object({
    c: z.number().int(),
    n: z.number().int(),
    p: z.number(),
    length: BudgetSchema,
    wm: BudgetSchema,
    weights: z.object({ alpha: z.number(), beta: z.number(), gamma: z.number() }),
  }),
  members: z.array(ScoredMemberSchema),
  /** Members that failed in the environment: excluded from the group, never scored. */
  infraFailed: z.array(z.string()),
});
export type ScoredGroup = z.infer<typeof ScoredGroupSchema>;

export const DroppedGroupSchema = z.object({
  groupId: z.string(),
  taskId: z.string(),
  scorable: z.number().int().nonnegative(),
  infraFailed: z.array(z.string()),
  reason: z.string(),
});

/** The scored groups of a run (stored as the run summary's `rl`, read back by the exports). */
export const RolloutGroupsReportSchema = z.object({
  options: RolloutGroupOptionsSchema,
  groups: z.array(ScoredGroupSchema),
  dropped: z.array(DroppedGroupSchema),
  /** Every member excluded as an infrastructure failure, kept or dropped group alike. */
  infraFailed: z.number().int().nonnegative(),
  /** Members neither complete nor infra-failed (aborted by a signal): not scored. */
  unfinished: z.number().int().nonnegative(),
});
export type RolloutGroupsReport = z.infer<typeof RolloutGroupsReportSchema>;

interface Collected {
  groupId: string;
  taskId: string;
  groupSeed: number;
  complete: Array<{ member: number; t: Trajectory }>;
  infraFailed: string[];
}

/**
 * R_success from an LLM judge instead of the verifier (`rl rollouts --success judge`): the judged
 * success by trajectory id. A complete member without a verdict (its judgment failed) is excluded
 * like an infrastructure failure, never scored 0.
 */
export interface JudgedSuccess {
  verdicts: ReadonlyMap<string, boolean>;
}

/** The trajectories with `meta.rl`, by group in first-seen order. */
function collectGroups(
  trajectories: Iterable<Trajectory>,
  judged?: JudgedSuccess,
): { groups: Collected[]; unfinished: number } {
  const groups = new Map<string, Collected>();
  let unfinished = 0;
  for (const t of trajectories) {
    const meta = GroupMetaSchema.safeParse((t.meta as { rl?: unknown }).rl);
    if (!meta.success) continue;
    const { groupId, member } = meta.data;
    let g = groups.get(groupId);
    if (!g) {
      g = { groupId, taskId: t.taskId, groupSeed: meta.data.groupSeed, complete: [], infraFailed: [] };
      groups.set(groupId, g);
    }
    if (t.status === "complete" && judged && !judged.verdicts.has(t.id)) g.infraFailed.push(t.id);
    else if (t.status === "complete") g.complete.push({ member, t });
    else if (t.status === "infra_failed") g.infraFailed.push(t.id);
    else unfinished += 1;
  }
  return { groups: [...groups.values()], unfinished };
}

/**
 * Scores a run's rollout groups: each group's composite rewards (success from the verifier outcome,
 * length = steps taken, WM calls from the trajectory's own steps) and GRPO advantages. Infrastructure
 * failures leave their group and are reported; a group with fewer than `minGroup` scorable members is
 * dropped and reported with the reason. Deterministic: members in member order, groups as stored.
 */
export function scoreRolloutGroups(
  trajectories: Iterable<Trajectory>,
  options: RolloutGroupOptions,
  judged?: JudgedSuccess,
): RolloutGroupsReport {
  const rewardOptions: RewardOptions = {
    ...options.rewards,
    maxLength: options.rewards.maxLength ?? options.tMax,
  };
  const { groups, unfinished } = collectGroups(trajectories, judged);
  const verifierSuccess = new Map<string, boolean>();
  const kept: Array<{
    g: Collected;
    scored: ReturnType<typeof groupRewards>;
    ids: Array<{ trajectoryId: string; member: number }>;
  }> = [];
  const dropped: RolloutGroupsReport["dropped"] = [];
  let infraFailed = 0;
  for (const g of groups) {
    infraFailed += g.infraFailed.length;
    const members = [...g.complete].sort((a, b) => a.member - b.member);
    if (members.length < options.minGroup) {
      dropped.push({
        groupId: g.groupId,
        taskId: g.taskId,
        scorable: members.length,
        infraFailed: g.infraFailed,
        reason: `${members.length} scorable member${members.length === 1 ? "" : "s"} < minimum ${options.minGroup}`,
      });
      continue;
    }
    for (const { t } of members) verifierSuccess.set(t.id, t.outcome?.success === true);
    const inputs: RewardInput[] = members.map(({ t }) => ({
      id: t.id,
      success: judged ? judged.verdicts.get(t.id) === true : t.outcome?.success === true,
      length: t.steps.length,
      wmCalls: trajectoryWmCalls(t),
    }));
    kept.push({
      g,
      scored: groupRewards(inputs, rewardOptions),
      ids: members.map(({ t, member }) => ({ trajectoryId: t.id, member })),
    });
  }
  const advantages = groupAdvantages(
    kept.map((k) => k.scored.members.map((m) => m.reward)),
    options.advantages satisfies AdvantageOptions,
  );
  return RolloutGroupsReportSchema.parse({
    options,
    groups: kept.map((k, gi) => ({
      groupId: k.g.groupId,
      taskId: k.g.taskId,
      groupSeed: k.g.groupSeed,
      stats: k.scored.stats,
      members: k.scored.members.map((m, i) => ({
        trajectoryId: m.id,
        member: k.ids[i]?.member ?? i,
        success: m.success,
        length: m.length,
        wmCalls: m.wmCalls,
        parts: m.parts,
        reward: m.reward,
        advantage: advantages[gi]?.[i] ?? 0,
        ...(judged ? { verifierSuccess: verifierSuccess.get(m.id) === true } : {}),
      })),
      infraFailed: k.g.infraFailed,
    })),
    dropped,
    infraFailed,
    unfinished,
  });
}
