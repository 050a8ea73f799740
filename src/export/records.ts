import { z } from "zod";
import { ExportedContextSchema } from "./policy-context.ts";

/** Provenance of an exported step: which run, task, node and leaves it came from. */
export const ProvenanceSchema = z
  .object({
    runId: z.string(),
    taskId: z.string(),
    split: z.string(),
    tier: z.string(),
    /** The search node that executed this step. */
    nodeId: z.string(),
    stepIndex: z.number().int().nonnegative(),
    /** Every successful leaf whose path contains this step. */
    leafIds: z.array(z.string()).min(1),
    /** Task search success rate and unique steps, the inputs of the weight. */
    taskSuccessRate: z.number().min(0).max(1),
    taskUniqueSteps: z.number().int().positive(),
  })
  .strict();
export type Provenance = z.infer<typeof ProvenanceSchema>;

const TrlTextPart = z.object({ type: z.literal("text"), text: z.string() }).strict();
const TrlImagePart = z.object({ type: z.literal("image") }).strict();

/** TRL conversational format: `messages` (system, user, assistant target), optional `images`. */
export const TrlRecordSchema = z
  .object({
    messages: z
      .array(
        z.union([
          z.object({ role: z.enum(["system", "assistant"]), content: z.string() }).strict(),
          z
            .object({
              role: z.literal("user"),
              content: z.union([z.string(), z.array(z.union([TrlTextPart, TrlImagePart]))]),
            })
            .strict(),
        ]),
      )
      .min(3)
      .refine((m) => m[m.length - 1]?.role === "assistant", {
        message: "the last message must be the assistant target",
      })
      .refine((m) => m.filter((x) => x.role === "assistant").length === 1, {
        message: "only the final assistant turn is a target",
      }),
    images: z.array(z.string()).optional(),
    weight: z.number().nonnegative().optional(),
    metadata: ProvenanceSchema,
    /** The policy context the step was produced from (`policy-context.ts`); trainers read it back. */
    context: ExportedContextSchema.optional(),
  })
  .strict();
export type TrlRecord = z.infer<typeof TrlRecordSchema>;

/** ShareGPT (LLaMA-Factory): `conversations` with from/value, `<image>` tokens matching `images`. */
export const ShareGptRecordSchema = z
  .object({
    conversations: z
      .array(z.object({ from: z.enum(["system", "human", "gpt"]), value: z.string() }).strict())
      .min(2)
      .refine((c) => c[c.length - 1]?.from === "gpt", { message: "the last turn must be the gpt target" }),
    system: z.string().optional(),
    images: z.array(z.string()).optional(),
    weight: z.number().nonnegative().optional(),
    metadata: ProvenanceSchema,
    /** The policy context the step was produced from (`policy-context.ts`); trainers read it back. */
    context: ExportedContextSchema.optional(),
  })
  .strict()
  .refine(
    (r) =>
      (r.images?.length ?? 0) ===
      r.conversations.reduce((a, t) => a + (t.value.match(/<image>/g)?.length ?? 0), 0),
    {
      message: "the number of <image> tokens must equal the number of images",
    },
  );
export type ShareGptRecord = z.infer<typeof ShareGptRecordSchema>;
