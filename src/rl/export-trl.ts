import { z } from "zod";
import { type StepRecord, type Task, type Trajectory, UserError } from "../core/index.ts";
import { buildAgentMessages } from "../llm/prompts.ts";
import type { RunStore } from "../store/contract.ts";
import { type RolloutGroupsReport, RolloutGroupsReportSchema } from "./rollout-groups.ts";

const MessageSchema = z
  .object({ role: z.enum(["system", "user", "assistant"]), content: z.string() })
  .strict();

/**
 * One TRL row (conversational prompt/completion, as `datasets`' JSON loader reads it): the prompt is
 * the llm policy's system message and first observation, the completion the trajectory's turns (its
 * actions, each later observation as a user turn between them), with the member's composite reward,
 * GRPO advantage, group id and the reward parts.
 */
export const TrlRlRecordSchema = z
  .object({
    prompt: z.array(MessageSchema).min(2),
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
  })
  .strict();
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

function systemText(task: Task, first: StepRecord): string {
  const [system] = buildAgentMessages(
    { task, observation: first.observation, history: [], stepIndex: 0 },
    { historyLength: 0, includeScreenshot: false },
  );
  return typeof system?.content === "string" ? system.content : "";
}

function actionText(step: StepRecord): string {
  return step.raw.length > 0 ? step.raw : JSON.stringify(step.action);
}

/**
 * The TRL rows of an rl run: one per scored member of every kept group (dropped groups and infra
 * failures have none), in group then member order, each validated. Deterministic for the same store.
 */
export function trlRlRecords(store: RunStore, runId: string): { records: TrlRlRecord[]; skipped: string[] } {
  const report = storedRolloutGroups(store, runId);
  const tasks = new Map(store.listTasks(runId).map((t) => [t.id, t] as const));
  const records: TrlRlRecord[] = [];
  const skipped: string[] = [];
  for (const g of report.groups) {
    const task = tasks.get(g.taskId);
    if (!task)
      throw new UserError(
        "rl.task_missing",
        `run ${runId} does not store task ${g.taskId}; the store is incomplete`,
      );
    for (const m of g.members) {
      const t = store.getTrajectory(m.trajectoryId);
      const first = t?.steps[0];
      if (!t || !first) {
        skipped.push(m.trajectoryId);
        continue;
      }
      const completion: Array<z.infer<typeof MessageSchema>> = [];
      t.steps.forEach((s, i) => {
        if (i > 0) completion.push({ role: "user", content: userText(task, s, undefined, i) });
        completion.push({ role: "assistant", content: actionText(s) });
      });
      records.push(
        TrlRlRecordSchema.parse({
          prompt: [
            { role: "system", content: systemText(task, first) },
            { role: "user", content: userText(task, first, undefined, 0) },
          ],
          completion,
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
        }),
      );
    }
  }
  return { records, skipped };
}

/** One JSON object per line, keys in schema order, a newline after each. */
export function toJsonl(records: ReadonlyArray<TrlRlRecord>): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}
