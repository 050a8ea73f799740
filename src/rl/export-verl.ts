import { z } from "zod";
import { canonicalJson } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import { MEMBER_COLUMNS, memberColumns, type RlMemberRow, rlMemberRows } from "./export-trl.ts";
import { ChatMessageSchema, maskAlignmentIssue } from "./loss-mask.ts";
import { type ParquetColumns, parquetColumnData, parquetSchema } from "./parquet-columns.ts";

/**
 * One verl RL-dataset row (the columns of verl's `RLHFDataset`): `data_source`, `prompt` (the chat
 * messages the policy sees first), `ability`, `reward_model` ({style "rule", ground_truth}) and
 * `extra_info`. One row per scored member (a trainer that samples its own rollouts can keep one row
 * per `group_id`); `extra_info` holds the member's score and its recorded completion with the loss
 * mask, so the rows also serve offline training.
 */
export const VerlRlRecordSchema = z
  .object({
    data_source: z.string().min(1),
    prompt: z.array(ChatMessageSchema).min(2),
    ability: z.string().min(1),
    reward_model: z.object({ style: z.literal("rule"), ground_truth: z.string().min(1) }).strict(),
    extra_info: z
      .object({
        split: z.string().min(1),
        index: z.number().int().nonnegative(),
        group_seed: z.number().int().nonnegative(),
        ...MEMBER_COLUMNS,
      })
      .strict(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const e = r.extra_info;
    const issue = maskAlignmentIssue({
      messages: e.completion,
      mask: e.completion_mask,
      sources: e.completion_sources,
    });
    if (issue) ctx.addIssue({ code: "custom", path: ["extra_info", "completion_mask"], message: issue });
  });
export type VerlRlRecord = z.infer<typeof VerlRlRecordSchema>;

const MESSAGES = {
  list: {
    struct: [
      ["role", "string"],
      ["content", "string"],
    ],
  },
} as const;

/** The Parquet columns of a verl row: nested (lists of structs), as verl reads `prompt`. */
export const VERL_COLUMNS: ParquetColumns = [
  ["data_source", "string"],
  ["prompt", MESSAGES],
  ["ability", "string"],
  [
    "reward_model",
    {
      struct: [
        ["style", "string"],
        ["ground_truth", "string"],
      ],
    },
  ],
  [
    "extra_info",
    {
      struct: [
        ["split", "string"],
        ["index", "int64"],
        ["group_id", "string"],
        ["task_id", "string"],
        ["trajectory_id", "string"],
        ["member", "int64"],
        ["group_seed", "int64"],
        ["reward", "double"],
        ["reward_success", "double"],
        ["reward_length", "double"],
        ["reward_wm", "double"],
        ["advantage", "double"],
        ["success", "boolean"],
        ["length", "int64"],
        ["wm_calls", "double"],
        ["completion", MESSAGES],
        ["completion_mask", { list: "boolean" }],
        ["completion_sources", { list: "string" }],
      ],
    },
  ],
];

/**
 * What a rule reward needs to verify a rollout of the row's task: the environment family, the task,
 * its verifier and the episode seed every member of the group started from (canonical JSON).
 */
export function verlGroundTruth(row: RlMemberRow): string {
  return canonicalJson({
    family: row.task.family,
    task_id: row.task.id,
    verifier: row.task.verifier,
    seed: row.group.groupSeed,
  });
}

function verlRecord(row: RlMemberRow, index: number): VerlRlRecord {
  const t = row.trl;
  return VerlRlRecordSchema.parse({
    data_source: `rehearsal/${row.task.family}`,
    prompt: t.prompt,
    ability: row.task.family,
    reward_model: { style: "rule", ground_truth: verlGroundTruth(row) },
    extra_info: {
      split: row.task.split,
      index,
      group_seed: row.group.groupSeed,
      ...memberColumns(t),
    },
  });
}

/** The verl rows of an rl run, in the TRL rows' order (`index` is the row number), each validated. */
export function verlRlRecords(
  store: RunStore,
  runId: string,
): { records: VerlRlRecord[]; skipped: string[] } {
  const { rows, skipped } = rlMemberRows(store, runId);
  return { records: rows.map(verlRecord), skipped };
}

/**
 * The Parquet bytes of verl rows (one row group per 1000 rows, snappy, nested columns
 * `VERL_COLUMNS`). No clock or random input: the same records give the same bytes.
 */
export async function verlParquet(
  records: ReadonlyArray<VerlRlRecord>,
  meta: { runId: string },
): Promise<Uint8Array> {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const buffer = parquetWriteBuffer({
    schema: parquetSchema(VERL_COLUMNS),
    columnData: parquetColumnData(VERL_COLUMNS, records) as Parameters<
      typeof parquetWriteBuffer
    >[0]["columnData"],
    rowGroupSize: 1000,
    createdBy: "rehearsal rl export --format verl",
    kvMetadata: [{ key: "rehearsal.run", value: meta.runId }],
  });
  return new Uint8Array(buffer);
}
