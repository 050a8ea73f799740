import { z } from "zod";
import type { Action } from "../../core/action.ts";
import { FROZENLAKE_INSTRUCTION } from "../../envs/frozenlake/suite.ts";
import { TrlRecordSchema } from "../../export/records.ts";
import type { ChatMessage } from "../../llm/messages.ts";
import { describeIssues } from "../errors.ts";
import { SklSdRecordError } from "./options.ts";

export const SD_DATASETS = ["base", "distill", "reflect"] as const;
export type SdDataset = (typeof SD_DATASETS)[number];

/** TRL conversational messages (system, user, one final assistant target), as in `TrlRecordSchema`. */
const MessagesSchema = TrlRecordSchema.shape.messages;

/** One acting step of D_base (first rollout succeeded) or D_distill (retry succeeded). */
export const SdActionRecordSchema = z
  .object({
    messages: MessagesSchema,
    metadata: z
      .object({
        dataset: z.enum(["base", "distill"]),
        iteration: z.number().int().nonnegative(),
        taskId: z.string().min(1),
        episodeId: z.string().min(1),
        step: z.number().int().nonnegative(),
        stateKey: z.string().min(1),
        action: z.string().min(1),
        episodeReturn: z.number(),
        /** Whether the prompt shows knowledge (D_base: the table's; D_distill: never the pre-filled one). */
        knowledgeShown: z.boolean(),
      })
      .strict(),
  })
  .strict();
export type SdActionRecord = z.infer<typeof SdActionRecordSchema>;

/** One knowledge update z → ẑ that belonged to a corrected failure (D_reflect, SFT target ẑ). */
export const SdReflectRecordSchema = z
  .object({
    messages: MessagesSchema,
    metadata: z
      .object({
        dataset: z.literal("reflect"),
        iteration: z.number().int().nonnegative(),
        taskId: z.string().min(1),
        episodeId: z.string().min(1),
        stateKey: z.string().min(1),
        mode: z.enum(["understand", "bootstrap"]),
        writer: z.string().min(1),
        oldKnowledge: z.string().nullable(),
        newKnowledge: z.string(),
      })
      .strict(),
  })
  .strict();
export type SdReflectRecord = z.infer<typeof SdReflectRecordSchema>;

export const ACTING_SYSTEM_PROMPT =
  `You are an agent playing FrozenLake. ${FROZENLAKE_INSTRUCTION} ` +
  "The grid shows P (you), _ (frozen), O (hole) and G (goal). Answer with one JSON action.";

/** The acting prompt: the grid, and the knowledge about the state when there is some to show. */
export function actingMessages(grid: string, knowledge: string | undefined): ChatMessage[] {
  const user = [`Map:\n${grid}`];
  if (knowledge !== undefined) user.push(`Knowledge about this state: ${knowledge}`);
  user.push("Your action:");
  return [
    { role: "system", content: ACTING_SYSTEM_PROMPT },
    { role: "user", content: user.join("\n") },
  ];
}

/** The assistant target of an acting step: the action as JSON. */
export function actionTarget(action: Action): string {
  return JSON.stringify(action);
}

/** The assistant target of a knowledge update, in the LLM writer's answer format. */
export function knowledgeTarget(text: string): string {
  return JSON.stringify({ skip: false, knowledge: text });
}

function textOnly(
  messages: ReadonlyArray<ChatMessage>,
): Array<{ role: ChatMessage["role"]; content: string }> {
  return messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === "string"
        ? m.content
        : m.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
  }));
}

/** A validated record; throws `SklSdRecordError` when it does not validate. */
export function actionRecord(
  prompt: ReadonlyArray<ChatMessage>,
  target: string,
  metadata: SdActionRecord["metadata"],
): SdActionRecord {
  const parsed = SdActionRecordSchema.safeParse({
    messages: [...textOnly(prompt), { role: "assistant", content: target }],
    metadata,
  });
  if (!parsed.success) throw new SklSdRecordError(metadata.dataset, describeIssues(parsed.error.issues));
  return parsed.data;
}

export function reflectRecord(
  prompt: ReadonlyArray<ChatMessage>,
  metadata: SdReflectRecord["metadata"],
): SdReflectRecord {
  const parsed = SdReflectRecordSchema.safeParse({
    messages: [...textOnly(prompt), { role: "assistant", content: knowledgeTarget(metadata.newKnowledge) }],
    metadata,
  });
  if (!parsed.success) throw new SklSdRecordError("reflect", describeIssues(parsed.error.issues));
  return parsed.data;
}

/** JSONL text: one record per line, final newline (empty string for no records). */
export function toJsonl(records: ReadonlyArray<unknown>): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}
