import { z } from "zod";
import { type StepRecord, type Task, type Trajectory, UserError } from "../core/index.ts";
import { buildAgentMessages } from "../llm/prompts.ts";
import type { RunStore } from "../store/contract.ts";
import {
  type CompletionTurn,
  ChatMessageSchema as MessageSchema,
  MessageSourceSchema,
  maskAlignmentIssue,
  maskCompletion,
} from "./loss-mask.ts";
import {
  type RolloutGroupsReport,
  RolloutGroupsReportSchema,
  type ScoredGroup,
  type ScoredMember,
} from "./rollout-groups.ts";

/**
 * The columns every rl export format gives a member (TRL at the top level, verl in `extra_info`): its
 * masked completion, score and identity, in this order.
 */
export const MEMBER_COLUMNS = {
  completion: z.array(MessageSchema).min(1),
  reward: z.number().finite(),
  advantage: z.number().finite(),
  group_id: z.string().min(1),
  task_id: z.string().min(1),
  trajectory_id: z.string().min(1),
  member: z.number().int().nonnegative(),
  success: z.boolean(),
  length: z.number().int().nonnegative(),
  wm_calls: z.number().nonnegative(),
  reward_success: z.number(),
  reward_length: z.number(),
  reward_wm: z.number(),
  completion_mask: z.array(z.boolean()),
  completion_sources: z.array(MessageSourceSchema),
};
export type MemberColumns = z.infer<z.ZodObject<typeof MEMBER_COLUMNS>>;

/** The member columns of a TRL row. */
export function memberColumns(r: TrlRlRecord): MemberColumns {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(MEMBER_COLUMNS)) out[key] = r[key as keyof MemberColumns];
  return out as MemberColumns;
}

/**
 * One TRL row (conversational prompt/completion, as `datasets`' JSON loader reads it): the prompt is
 * the llm policy's system message and first observation, the completion the trajectory's turns (its
 * actions, each later observation as a user turn between them; a step's injected world-model answers
 * are `user` messages of their own), with the member's composite reward, GRPO advantage, group id and
 * the reward parts. The loss mask (`loss-mask.ts`) is explicit: `completion_mask[i]` (true =
 * trainable) and `completion_sources[i]` for message i, and the flat form `completion_text` with each
 * message's code-point span `completion_spans[i]`.
 */
export const TrlRlRecordSchema = z
  .object({
    prompt: z.array(MessageSchema).min(2),
    ...MEMBER_COLUMNS,
    completion_text: z.string(),
    completion_spans: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
  })
  .strict()
  .superRefine((r, ctx) => {
    const issue = maskAlignmentIssue({
      messages: r.completion,
      mask: r.completion_mask,
      sources: r.completion_sources,
      spans: r.completion_spans,
      text: r.completion_text,
    });
    if (issue) ctx.addIssue({ code: "custom", path: ["completion_mask"], message: issue });
  });
export type TrlRlRecord = z.infer<typeof TrlRlRecordSchema>;

/** The scored groups stored with an rl run (its summary's `rl`), validated. */
export function storedRolloutGroups(store: RunStore, runId: string): RolloutGroupsReport {
  const run = store.getRun(runId);
  if (!run)
    throw new UserError(
      "rl.run_not_found",
      `no run ${runId} in the store; list them with 'rehearsal runs list --kind rl'`,
    );
  if (run.kind !== "rl")
    throw new UserError(
      "rl.not_rl_run",
      `run ${runId} is a ${run.kind} run; rl export takes a run of 'rehearsal rl rollouts'`,
    );
  const parsed = RolloutGroupsReportSchema.safeParse((run.summary as { rl?: unknown }).rl);
  if (!parsed.success)
    throw new UserError(
      "rl.no_groups",
      `run ${runId} has no valid scored rollout groups (${parsed.error.issues[0]?.message ?? "missing"}); it may have been interrupted before scoring: run 'rehearsal rl rollouts' again`,
    );
  return parsed.data;
}

function userText(
  task: Task,
  step: StepRecord | undefined,
  observation: Trajectory["finalObservation"],
  index: number,
): string {
  const obs = step?.observation ?? observation;
  if (!obs) return "";
  const messages = buildAgentMessages(
    { task, observation: { ...obs, screenshot: undefined }, history: [], stepIndex: index },
    { historyLength: 0, includeScreenshot: false },
  );
  const content = messages[1]?.content;
  return typeof content === "string" ? content : "";
}

function systemText(task: Task, first: StepRecord, wmCalls: { cap: number } | undefined): string {
  const [system] = buildAgentMessages(
    { task, observation: first.observation, history: [], stepIndex: 0 },
    { historyLength: 0, includeScreenshot: false, ...(wmCalls ? { wmCalls } : {}) },
  );
  return typeof system?.content === "string" ? system.content : "";
}

function actionText(step: StepRecord): string {
  return step.raw.length > 0 ? step.raw : JSON.stringify(step.action);
}

/** One scored member with what every rl export format reads: its task, group, score and row. */
export interface RlMemberRow {
  task: Task;
  group: ScoredGroup;
  member: ScoredMember;
  trl: TrlRlRecord;
}

/** The TRL row of one scored member whose trajectory has steps. */
/**
 * The `<call_wm>` instructions the llm policy's system prompt held in a run, if it had them: an
 * llm policy given a world model (`call-wm(...)`, with the run's `wm.cap`) saw them; any other did not.
 */
function runWmCalls(summary: unknown): { cap: number } | undefined {
  const parsed = z
    .object({ policy: z.string().startsWith("call-wm("), wm: z.object({ cap: z.number().int().min(0) }) })
    .safeParse(summary);
  return parsed.success ? { cap: parsed.data.wm.cap } : undefined;
}

function trlRecord(
  task: Task,
  g: ScoredGroup,
  m: ScoredMember,
  steps: StepRecord[],
  wmCalls: { cap: number } | undefined,
): TrlRlRecord {
  const [first] = steps as [StepRecord];
  const turns: CompletionTurn[] = [];
  steps.forEach((s, i) => {
    if (i > 0) turns.push({ kind: "observation", text: userText(task, s, undefined, i) });
    turns.push({ kind: "step", raw: actionText(s) });
  });
  const masked = maskCompletion(turns);
  return TrlRlRecordSchema.parse({
    prompt: [
      { role: "system", content: systemText(task, first, wmCalls) },
      { role: "user", content: userText(task, first, undefined, 0) },
    ],
    completion: masked.messages,
    reward: m.reward,
    advantage: m.advantage,
    group_id: g.groupId,
    task_id: g.taskId,
    trajectory_id: m.trajectoryId,
    member: m.member,
    success: m.success,
    length: m.length,
    wm_calls: m.wmCalls,
    reward_success: m.parts.success,
    reward_length: m.parts.length,
    reward_wm: m.parts.wm,
    completion_mask: masked.mask,
    completion_sources: masked.sources,
    completion_text: masked.text,
    completion_spans: masked.spans,
  });
}

/**
 * The scored members of an rl run with their TRL rows: one per scored member of every kept group
 * (dropped groups and infra failures have none), in group then member order, each validated; a
 * member whose trajectory has no steps is listed in `skipped`. Deterministic for the same store.
 */
export function rlMemberRows(store: RunStore, runId: string): { rows: RlMemberRow[]; skipped: string[] } {
  const report = storedRolloutGroups(store, runId);
  const tasks = new Map(store.listTasks(runId).map((t) => [t.id, t] as const));
  const wmCalls = runWmCalls(store.getRun(runId)?.summary);
  const rows: RlMemberRow[] = [];
  const skipped: string[] = [];
  for (const g of report.groups) {
    const task = tasks.get(g.taskId);
    if (!task)
      throw new UserError(
        "rl.task_missing",
        `run ${runId} does not store task ${g.taskId}; the store is incomplete: record the run again with 'rehearsal rl rollouts'`,
      );
    for (const m of g.members) {
      const t = store.getTrajectory(m.trajectoryId);
      if (!t || t.steps.length === 0) skipped.push(m.trajectoryId);
      else rows.push({ task, group: g, member: m, trl: trlRecord(task, g, m, t.steps, wmCalls) });
    }
  }
  return { rows, skipped };
}

/** The TRL rows of an rl run (see `rlMemberRows`). */
export function trlRlRecords(store: RunStore, runId: string): { records: TrlRlRecord[]; skipped: string[] } {
  const { rows, skipped } = rlMemberRows(store, runId);
  return { records: rows.map((r) => r.trl), skipped };
}

/** One JSON object per line, keys in schema order, a newline after each. */
export function toJsonl(records: ReadonlyArray<TrlRlRecord>): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}
