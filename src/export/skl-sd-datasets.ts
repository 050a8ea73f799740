import { z } from "zod";
import type { Action } from "../core/action.ts";
import type { ChatMessage } from "../llm/messages.ts";
import { TrlRecordSchema } from "./records.ts";
import { validRecord } from "./skl-jsonl.ts";

/** SKL-SD datasets (TRL conversational JSONL): D_base, D_distill, D_reflect. */
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

/** A validated D_base / D_distill record; throws `SklRecordError` when it does not validate. */
export function actionRecord(
  prompt: ReadonlyArray<ChatMessage>,
  target: string,
  metadata: SdActionRecord["metadata"],
): SdActionRecord {
  const record = { messages: [...textOnly(prompt), { role: "assistant", content: target }], metadata };
  return validRecord(SdActionRecordSchema, record, `SD ${metadata.dataset}`);
}

/** A validated D_reflect record (target: the new knowledge in the LLM writer's answer format). */
export function reflectRecord(
  prompt: ReadonlyArray<ChatMessage>,
  metadata: SdReflectRecord["metadata"],
): SdReflectRecord {
  const target = knowledgeTarget(metadata.newKnowledge);
  const record = { messages: [...textOnly(prompt), { role: "assistant", content: target }], metadata };
  return validRecord(SdReflectRecordSchema, record, "SD reflect");
}
