import { type Action, ActionSchema, type PolicyContext, UserError } from "../core/index.ts";
import { policyContextOf, ShareGptRecordSchema, TrlRecordSchema } from "../export/index.ts";
import { readUserFile } from "../policies/trainable/read-text.ts";
import { contextFromPrompt, familyFromSystemPrompt } from "./prompt-context.ts";

/** One training example of an exported record: the context its prompt shows, the target, the weight. */
export interface SftExample {
  context: PolicyContext;
  target: Action;
  /** The record's `weight` column; 1 where it has none (a materialised file repeats records instead). */
  weight: number;
  taskId: string;
}

export interface SftData {
  format: "trl" | "sharegpt";
  examples: SftExample[];
  family: string;
  /**
   * Where each example's context came from: the record's exported `context` (exactly what the policy
   * saw) or, for a file without one, the prompt text (`prompt-context.ts`: no earlier observations).
   */
  contexts: { exported: number; prompt: number };
}

interface Turns {
  system: string;
  user: string;
  target: string;
}

function trlTurns(record: ReturnType<typeof TrlRecordSchema.parse>): Turns {
  const text = (m: (typeof record.messages)[number] | undefined): string => {
    if (!m) return "";
    if (typeof m.content === "string") return m.content;
    return m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  };
  return {
    system: text(record.messages.find((m) => m.role === "system")),
    user: text(record.messages.filter((m) => m.role === "user").at(-1)),
    target: text(record.messages.at(-1)),
  };
}

function shareGptTurns(record: ReturnType<typeof ShareGptRecordSchema.parse>): Turns {
  const human = record.conversations.filter((c) => c.from === "human").at(-1)?.value ?? "";
  return {
    system: record.system ?? record.conversations.find((c) => c.from === "system")?.value ?? "",
    user: human.replace(/^(<image>)+\n/, ""),
    target: record.conversations.at(-1)?.value ?? "",
  };
}

function fail(file: string, line: number, what: string): never {
  throw new UserError(
    "train.bad_record",
    `train sft: line ${line} of ${file} ${what}; give a file written by 'rehearsal export sft' (TRL or ShareGPT)`,
  );
}

/**
 * Reads a TRL or ShareGPT file written by `export sft` (one JSON record per line, validated with the
 * export's own schemas) back into examples: the policy context (the record's `context` field, else
 * the one its prompt shows), the assistant target as an action and the weight. The format is the
 * first record's; the family is `family` or, without one, the exported context's or the one the
 * system prompt offers actions for.
 */
export function readSftData(file: string, family?: string): SftData {
  const text = readUserFile(file, "train.unreadable", "train sft", "check --data");
  const examples: SftExample[] = [];
  let format: SftData["format"] | undefined;
  let seenFamily = family;
  const contexts = { exported: 0, prompt: 0 };
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      fail(file, i + 1, "is not JSON");
    }
    const isTrl = typeof data === "object" && data !== null && "messages" in data;
    format ??= isTrl ? "trl" : "sharegpt";
    const r = format === "trl" ? TrlRecordSchema.safeParse(data) : ShareGptRecordSchema.safeParse(data);
    if (!r.success)
      fail(file, i + 1, `is not a ${format} record (${r.error.issues[0]?.message ?? "invalid"})`);
    const turns =
      format === "trl"
        ? trlTurns(r.data as ReturnType<typeof TrlRecordSchema.parse>)
        : shareGptTurns(r.data as ReturnType<typeof ShareGptRecordSchema.parse>);
    seenFamily ??= r.data.context?.task.family ?? familyFromSystemPrompt(turns.system);
    const meta = r.data.metadata;
    const context = r.data.context
      ? policyContextOf(r.data.context)
      : contextFromPrompt(turns.user, {
          taskId: meta.taskId,
          family: seenFamily,
          ...(meta.split === "train" || meta.split === "heldout" ? { split: meta.split } : {}),
        });
    if (!context) fail(file, i + 1, "has a user turn that is not a Rehearsal agent prompt");
    if (r.data.context) contexts.exported += 1;
    else contexts.prompt += 1;
    let target: Action;
    try {
      target = ActionSchema.parse(JSON.parse(turns.target));
    } catch {
      fail(file, i + 1, "has an assistant target that is not one action as JSON");
    }
    examples.push({ context, target, weight: r.data.weight ?? 1, taskId: meta.taskId });
  });
  if (examples.length === 0)
    throw new UserError("train.empty", `train sft: ${file} holds no records; check --data`);
  return { format: format ?? "trl", examples, family: seenFamily ?? "web", contexts };
}
